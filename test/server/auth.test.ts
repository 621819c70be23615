// The HTTP transport's security rules (src/server/auth.ts): token, token file, Origin, Host, bind policy.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkBind, hostAllowed, isAuthorized, isLoopbackHost, newToken, originAllowed, readTokenFile, removeTokenFile, tokenFilePath, tokenOf, tokensEqual, writeTokenFile } from "../../src/server/auth.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "chatcli-auth-"));
  dirs.push(d);
  return d;
}

describe("token", () => {
  test("32 random bytes, base64url, different each time", () => {
    const a = newToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, "base64url").length).toBe(32);
    expect(newToken()).not.toBe(a);
  });

  test("comparison: equal only when identical; an empty expected token never matches", () => {
    const t = newToken();
    expect(tokensEqual(t, t)).toBe(true);
    expect(tokensEqual(`${t}x`, t)).toBe(false);
    expect(tokensEqual(t.slice(0, -1), t)).toBe(false);
    expect(tokensEqual("", t)).toBe(false);
    expect(tokensEqual("", "")).toBe(false);
  });

  test("the bearer header or the WebSocket subprotocol form; never anything else", () => {
    const t = newToken();
    expect(isAuthorized(new Headers({ authorization: `Bearer ${t}` }), t)).toBe(true);
    expect(isAuthorized(new Headers({ authorization: `bearer ${t}` }), t)).toBe(true);
    expect(isAuthorized(new Headers({ authorization: `Basic ${t}` }), t)).toBe(false);
    expect(isAuthorized(new Headers({ authorization: `Bearer ${t} extra` }), t)).toBe(false);
    expect(isAuthorized(new Headers({ authorization: "Bearer wrong" }), t)).toBe(false);
    expect(isAuthorized(new Headers({}), t)).toBe(false);
    expect(isAuthorized(new Headers({ cookie: `token=${t}` }), t)).toBe(false);
    const ws = new Headers({ "sec-websocket-protocol": `other, chatcli.token.${t}` });
    expect(isAuthorized(ws, t)).toBe(true);
    expect(tokenOf(ws)).toEqual({ token: t, protocol: `chatcli.token.${t}` });
  });
});

describe("token file", () => {
  test("dir 0700, file 0600, atomic replace; removed only while it holds our token", () => {
    const home = tmp();
    const t = newToken();
    const file = writeTokenFile(home, 7433, t);
    expect(file).toBe(tokenFilePath(home, 7433));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, "server")).mode & 0o777).toBe(0o700);
    expect(readTokenFile(file)).toBe(t);
    const t2 = newToken();
    writeTokenFile(home, 7433, t2);
    expect(readTokenFile(file)).toBe(t2);
    expect(readdirSync(join(home, "server"))).toEqual(["7433.token"]); // no temp file left
    removeTokenFile(file, t); // not ours any more
    expect(existsSync(file)).toBe(true);
    removeTokenFile(file, t2);
    expect(existsSync(file)).toBe(false);
  });

  test("an existing loose directory is tightened to 0700", () => {
    const home = tmp();
    mkdirSync(join(home, "server"), { mode: 0o755 });
    writeTokenFile(home, 1, newToken());
    expect(statSync(join(home, "server")).mode & 0o777).toBe(0o700);
  });

  test("a symlink planted at the token path is replaced, never written through", () => {
    const home = tmp();
    mkdirSync(join(home, "server"), { mode: 0o700 });
    const victim = join(home, "victim.txt");
    writeFileSync(victim, "precious");
    symlinkSync(victim, tokenFilePath(home, 9));
    const t = newToken();
    writeTokenFile(home, 9, t);
    expect(readFileSync(victim, "utf8")).toBe("precious");
    expect(lstatSync(tokenFilePath(home, 9)).isSymbolicLink()).toBe(false);
    expect(readTokenFile(tokenFilePath(home, 9))).toBe(t);
  });

  test("a symlink in place of the directory is refused", () => {
    const home = tmp();
    const elsewhere = join(home, "elsewhere");
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(home, "server"));
    expect(() => writeTokenFile(home, 9, newToken())).toThrow();
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  test("an empty token file is an error, not an empty token", () => {
    const home = tmp();
    const f = join(home, "t");
    writeFileSync(f, "\n");
    expect(() => readTokenFile(f)).toThrow();
  });
});

describe("Origin and Host", () => {
  test("no Origin (not a browser) passes; an Origin only when allowlisted, compared as a normalized origin", () => {
    expect(originAllowed(null, [])).toBe(true);
    expect(originAllowed("http://evil.example", [])).toBe(false);
    expect(originAllowed("null", ["null"])).toBe(false);
    expect(originAllowed("https://app.example.com", ["https://app.example.com"])).toBe(true);
    expect(originAllowed("https://APP.example.com:443", ["https://app.example.com/"])).toBe(true);
    expect(originAllowed("http://app.example.com", ["https://app.example.com"])).toBe(false);
    expect(originAllowed("https://app.example.com.evil.io", ["https://app.example.com"])).toBe(false);
  });

  test("a loopback bind accepts only loopback names in Host (any port); a remote bind leaves it to the token", () => {
    expect(hostAllowed("127.0.0.1:7433", "127.0.0.1")).toBe(true);
    expect(hostAllowed("localhost:9999", "127.0.0.1")).toBe(true);
    expect(hostAllowed("[::1]:7433", "127.0.0.1")).toBe(true);
    expect(hostAllowed("evil.example:7433", "127.0.0.1")).toBe(false);
    expect(hostAllowed("127.0.0.1.evil.example", "127.0.0.1")).toBe(false);
    expect(hostAllowed(null, "127.0.0.1")).toBe(false);
    expect(hostAllowed("a b", "127.0.0.1")).toBe(false);
    expect(hostAllowed("chatcli.svc.cluster.local:7433", "0.0.0.0")).toBe(true);
  });
});

describe("bind policy", () => {
  test("loopback is fine; anything else needs --allow-remote and then TLS or --insecure (which warns)", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"]) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ["0.0.0.0", "::", "192.168.1.5", "example.com"]) expect(isLoopbackHost(h)).toBe(false);
    expect(checkBind({ host: "127.0.0.1", allowRemote: false, insecure: false })).toEqual({ ok: true, warnInsecure: false });
    expect(checkBind({ host: "0.0.0.0", allowRemote: false, insecure: true })).toEqual({ ok: false, reason: "needsAllowRemote" });
    expect(checkBind({ host: "0.0.0.0", allowRemote: true, insecure: false })).toEqual({ ok: false, reason: "needsTls" });
    expect(checkBind({ host: "0.0.0.0", allowRemote: true, insecure: true })).toEqual({ ok: true, warnInsecure: true });
    expect(checkBind({ host: "0.0.0.0", allowRemote: true, insecure: false, tlsCert: "c", tlsKey: "k" })).toEqual({ ok: true, warnInsecure: false });
    expect(checkBind({ host: "127.0.0.1", allowRemote: false, insecure: false, tlsCert: "c" })).toEqual({ ok: false, reason: "tlsPair" });
  });
});
