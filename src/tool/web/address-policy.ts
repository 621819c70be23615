/**
 * Which IP addresses the fetch tool may connect to. Refused unless `webFetch.allowPrivateNetworks`: loopback,
 * private (RFC 1918), carrier-grade NAT, link-local, unique-local, site-local, multicast, reserved, documentation and
 * benchmarking ranges, the unspecified address, and IPv6 forms that carry an IPv4 address (IPv4-mapped
 * `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, Teredo): those are judged by
 * the IPv4 address inside. Anything that does not parse as an address is refused (fail closed).
 */
import { isIPv4, isIPv6 } from "node:net";

/** A short English reason when `ip` is not a public unicast address, else undefined. */
export function nonPublicReason(ip: string): string | undefined {
  const bare = ip.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIPv4(bare)) return v4Reason(v4Octets(bare));
  if (isIPv6(bare)) return v6Reason(v6Hextets(bare));
  return "not an IP address";
}

function v4Octets(ip: string): number[] {
  return ip.split(".").map((x) => Number(x));
}

function v4Reason(o: number[]): string | undefined {
  const [a = 0, b = 0, c = 0] = o;
  if (a === 0) return "the unspecified/this-network range (0.0.0.0/8)";
  if (a === 127) return "loopback (127.0.0.0/8)";
  if (a === 10) return "private (10.0.0.0/8)";
  if (a === 172 && b >= 16 && b <= 31) return "private (172.16.0.0/12)";
  if (a === 192 && b === 168) return "private (192.168.0.0/16)";
  if (a === 100 && b >= 64 && b <= 127) return "carrier-grade NAT (100.64.0.0/10)";
  if (a === 169 && b === 254) return "link-local (169.254.0.0/16)";
  if (a === 192 && b === 0 && c === 0) return "IETF protocol assignments (192.0.0.0/24)";
  if (a === 192 && b === 0 && c === 2) return "documentation (192.0.2.0/24)";
  if (a === 198 && (b === 18 || b === 19)) return "benchmarking (198.18.0.0/15)";
  if (a === 198 && b === 51 && c === 100) return "documentation (198.51.100.0/24)";
  if (a === 203 && b === 0 && c === 113) return "documentation (203.0.113.0/24)";
  if (a >= 224 && a <= 239) return "multicast (224.0.0.0/4)";
  if (a >= 240) return "reserved (240.0.0.0/4)";
  return undefined;
}

/** Eight 16-bit groups; an embedded dotted IPv4 tail becomes the last two. */
function v6Hextets(ip: string): number[] {
  let s = ip.toLowerCase();
  const tail = s.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (tail) {
    const [a = 0, b = 0, c = 0, d = 0] = v4Octets(tail[1]!);
    s = `${s.slice(0, -tail[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", rest] = s.split("::");
  const left = head ? head.split(":") : [];
  const right = rest !== undefined && rest !== "" ? rest.split(":") : [];
  const fill = rest !== undefined ? 8 - left.length - right.length : 0;
  return [...left, ...Array<string>(Math.max(0, fill)).fill("0"), ...right].map((h) => parseInt(h, 16) || 0);
}

function embeddedV4(h: number[], from: number): number[] {
  const hi = h[from] ?? 0;
  const lo = h[from + 1] ?? 0;
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
}

function v6Reason(h: number[]): string | undefined {
  const zeros = (n: number) => h.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return "the unspecified address (::)";
  if (zeros(7) && h[7] === 1) return "loopback (::1)";
  if (zeros(5) && h[5] === 0xffff) return inside("IPv4-mapped", embeddedV4(h, 6));
  if (zeros(6)) return inside("IPv4-compatible", embeddedV4(h, 6));
  if (h[0] === 0x64 && h[1] === 0xff9b) return inside("NAT64", embeddedV4(h, 6));
  if (h[0] === 0x2002) return inside("6to4", embeddedV4(h, 1));
  const first = h[0] ?? 0;
  if (first === 0x2001 && h[1] === 0) return "Teredo (2001::/32)";
  if (first === 0x2001 && h[1] === 0xdb8) return "documentation (2001:db8::/32)";
  if (first === 0x100 && h[1] === 0 && h[2] === 0 && h[3] === 0) return "discard-only (100::/64)";
  if ((first & 0xfe00) === 0xfc00) return "unique-local (fc00::/7)";
  if ((first & 0xffc0) === 0xfe80) return "link-local (fe80::/10)";
  if ((first & 0xffc0) === 0xfec0) return "site-local (fec0::/10)";
  if ((first & 0xff00) === 0xff00) return "multicast (ff00::/8)";
  return undefined;
}

/** An IPv6 form carrying an IPv4 address: refused when the IPv4 address would be. */
function inside(form: string, v4: number[]): string | undefined {
  const r = v4Reason(v4);
  return r ? `${form} ${v4.join(".")}: ${r}` : undefined;
}

/** Host names that always mean this machine, whatever a resolver answers. */
export function isLocalName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost") || h === "localhost.localdomain" || h === "ip6-localhost" || h === "ip6-loopback";
}
