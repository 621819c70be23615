/**
 * macOS: `sandbox-exec -p <profile>` with a Seatbelt profile generated from the same fs plan as bwrap. Seatbelt
 * matches paths, so protected paths need no placeholders: writes below them are refused whether they exist or not.
 * Rules use `require-not` instead of relying on rule order. There is no private /tmp: TMPDIR points at the
 * session scratch dir, which is writable. Untested on a real Mac here; the profile text has unit tests.
 */
import type { FsPlan } from "./fs-plan.ts";
import type { WrappedCommand, WrapRequest } from "./types.ts";

export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

export function seatbeltWrap(plan: FsPlan, req: WrapRequest, scratchDir: string | undefined): WrappedCommand {
  const profile = seatbeltProfile(plan, { network: req.network });
  return {
    argv: [SANDBOX_EXEC, "-p", profile, "--", ...req.argv],
    env: scratchDir ? { ...req.env, TMPDIR: scratchDir } : { ...req.env },
    cleanup: () => undefined,
  };
}

export function seatbeltProfile(plan: FsPlan, o: { network: boolean }): string {
  const lines = [
    "(version 1)",
    "(deny default)",
    "(allow process-exec process-fork process-info* signal)",
    "(allow sysctl-read)",
    "(allow mach-lookup)",
    "(allow ipc-posix-shm* ipc-posix-sem)",
    "(allow file-ioctl)",
    "(allow pseudo-tty)",
    // Everything is readable except the masked credential stores.
    `(allow file-read* ${requireNot('(subpath "/")', plan.masks.map((m) => m.path))})`,
    '(allow file-write-data (literal "/dev/null") (literal "/dev/zero") (regex #"^/dev/tty") (regex #"^/dev/fd/"))',
  ];
  if (plan.writable.length) {
    const any = `(require-any ${plan.writable.map((w) => `(subpath ${quote(w)})`).join(" ")})`;
    lines.push(`(allow file-write* ${requireNot(any, [...plan.protected.map((p) => p.path), ...plan.masks.map((m) => m.path)])})`);
  }
  if (o.network) lines.push("(allow network*)", "(allow system-socket)");
  return `${lines.join("\n")}\n`;
}

function requireNot(base: string, excluded: string[]): string {
  if (!excluded.length) return base;
  return `(require-all ${base} ${excluded.map((p) => `(require-not (subpath ${quote(p)}))`).join(" ")})`;
}

/** An SBPL string literal: backslash and double quote escaped; control characters refused (fail closed). */
export function quote(p: string): string {
  if (/[\u0000-\u001f]/.test(p)) throw new Error(`a sandbox path holds a control character: ${JSON.stringify(p)}`);
  return `"${p.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}
