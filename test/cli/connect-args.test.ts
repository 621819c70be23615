// `chatcli connect` arguments: the server URL forms, where the token comes from (the token file only for a
// loopback host), usage errors.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConnectArgs, parseServerUrl, resolveToken } from "../../src/cli/commands/connect-args.ts";
import { UsageError } from "../../src/cli/args.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("connect arguments", () => {
  test("URL forms: default, host:port, http(s), ws(s); no port written means 7433", () => {
    expect(parseServerUrl(parseConnectArgs([]).url)).toEqual({ base: "http://127.0.0.1:7433", where: "127.0.0.1:7433", port: 7433, loopback: true });
    expect(parseServerUrl("localhost:9000")).toMatchObject({ base: "http://localhost:9000", loopback: true });
    expect(parseServerUrl("ws://10.0.0.5:8080/ws")).toMatchObject({ base: "http://10.0.0.5:8080", where: "10.0.0.5:8080", loopback: false });
    expect(parseServerUrl("wss://chat.example.com")).toMatchObject({ base: "https://chat.example.com:7433", port: 7433, loopback: false });
    expect(parseServerUrl("https://chat.example.com:443")).toMatchObject({ base: "https://chat.example.com:443", port: 443 });
    expect(parseServerUrl("http://[::1]:7500")).toMatchObject({ base: "http://[::1]:7500", loopback: true });
    expect(() => parseServerUrl("ftp://x")).toThrow(UsageError);
    expect(() => parseConnectArgs(["--bogus"])).toThrow(UsageError);
    expect(() => parseConnectArgs(["--token"])).toThrow(UsageError);
    expect(() => parseConnectArgs(["--permission-mode", "yolo"])).toThrow(UsageError);
    expect(parseConnectArgs(["http://h:1", "--session=abc", "--list", "--insecure-tls"])).toMatchObject({ url: "http://h:1", session: "abc", list: true, insecureTls: true });
  });

  test("token: --token, then CHATCLI_SERVER_TOKEN, then the port's token file — for a loopback host only", () => {
    const home = mkdtempSync(join(tmpdir(), "chatcli-connect-"));
    dirs.push(home);
    mkdirSync(join(home, "server"));
    writeFileSync(join(home, "server", "7500.token"), "from-file\n");
    const env = { CHATCLI_HOME: home };
    const local = parseServerUrl("127.0.0.1:7500");
    expect(resolveToken({ token: "flag" }, local, { ...env, CHATCLI_SERVER_TOKEN: "env" })).toMatchObject({ token: "flag", source: "flag" });
    expect(resolveToken({}, local, { ...env, CHATCLI_SERVER_TOKEN: "env" })).toMatchObject({ token: "env", source: "env" });
    expect(resolveToken({}, local, env)).toMatchObject({ token: "from-file", source: "file", file: join(home, "server", "7500.token") });
    // Another machine's server never gets this machine's token file.
    expect(resolveToken({}, parseServerUrl("10.1.2.3:7500"), env)).toMatchObject({ source: "none" });
    expect(resolveToken({}, parseServerUrl("127.0.0.1:7501"), env)).toMatchObject({ source: "none" });
  });
});
