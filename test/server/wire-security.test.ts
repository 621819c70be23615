// The security fixes of the server's attack table (test/smoke/server-attacks.smoke.ts), unit by unit: the browser
// guard (Fetch Metadata without an Origin), bypass from the wire (refused unless the server runs with it), chatcli's
// secret directories (masked for commands, refused to file tools, links included), relative permission paths.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { browserAllowed } from "../../src/server/auth.ts";
import { SessionHost, type BuiltSession, type HostClient, type SessionFactory } from "../../src/server/session-host.ts";
import type { SessionEventParams } from "../../src/server/protocol.ts";
import { fsPlan } from "../../src/sandbox/fs-plan.ts";
import { createPermissionPolicy } from "../../src/tool/permission.ts";
import { ScriptedProvider } from "../support/scripted-provider.ts";
import { bindingOf, makeSession, type MachineHarness } from "../support/machine-session.ts";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "chatcli-wiresec-"));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

describe("browserAllowed: Origin allowlist, then Fetch Metadata", () => {
  const h = (o: Record<string, string>) => new Headers(o);
  test.each([
    [{}, true],
    [{ "sec-fetch-site": "none" }, true],
    [{ "sec-fetch-site": "same-origin" }, true],
    [{ "sec-fetch-site": "cross-site" }, false],
    [{ "sec-fetch-site": "same-site" }, false],
    [{ "sec-fetch-site": "bogus" }, false], // an unknown value: refused (fail closed)
  ] as Array<[Record<string, string>, boolean]>)("%j → %p", (headers, ok) => {
    expect(browserAllowed(h(headers), [])).toBe(ok);
  });
  test("an allowlisted Origin passes even cross-site; a foreign or null one never does", () => {
    expect(browserAllowed(h({ origin: "https://app.example", "sec-fetch-site": "cross-site" }), ["https://app.example"])).toBe(true);
    expect(browserAllowed(h({ origin: "https://evil.example" }), ["https://app.example"])).toBe(false);
    expect(browserAllowed(h({ origin: "null" }), ["https://app.example"])).toBe(false);
  });
});

class Sink implements HostClient {
  readonly got: SessionEventParams[] = [];
  constructor(readonly id: string) {}
  sendEvent(p: SessionEventParams): void {
    this.got.push(p);
  }
}

function factory(allowBypass: boolean | undefined): SessionFactory & { built: number } {
  const f = {
    built: 0,
    create: async () => {
      const h: MachineHarness = makeSession({ binding: bindingOf(new ScriptedProvider([]), { id: "SCRIPTED", model: "m1" }) });
      cleanups.push(() => h.cleanup());
      f.built += 1;
      const built: BuiltSession = { id: `s${f.built}`, cwd: "/p", core: h.session, provider: () => "SCRIPTED", model: () => "m1", dispose: async () => undefined };
      return built;
    },
    resume: async () => undefined,
    resolveId: () => undefined,
    saved: () => [],
    ...(allowBypass !== undefined ? { allowBypass } : {}),
  };
  return f;
}

describe("bypass from the wire", () => {
  test("refused (-32602) for session/new and session/setMode unless the server runs with bypass; nothing is built", async () => {
    const f = factory(undefined);
    const host = new SessionHost(f);
    const c = new Sink("c");
    await expect(host.create(c, { permissionMode: "bypass" })).rejects.toMatchObject({ code: -32602 });
    expect(f.built).toBe(0);
    const ok = await host.create(c, { permissionMode: "accept-edits" });
    ok.afterResponse();
    const id = ok.result.session.sessionId;
    expect(() => host.submit(c, id, { type: "set_permission_mode", mode: "bypass" })).toThrow(expect.objectContaining({ code: -32602 }));
    expect(() => host.submit(c, id, { type: "set_permission_mode", mode: "plan" })).not.toThrow();
    await host.shutdown();
  });
  test("allowed when the factory says the server itself runs with bypass", async () => {
    const host = new SessionHost(factory(true));
    const c = new Sink("c");
    const ok = await host.create(c, { permissionMode: "bypass" });
    ok.afterResponse();
    expect(() => host.submit(c, ok.result.session.sessionId, { type: "set_permission_mode", mode: "bypass" })).not.toThrow();
    await host.shutdown();
  });
});

describe("chatcli's secret directories", () => {
  test("the sandbox masks <home>/server (server tokens) and <home>/auth", () => {
    const d = tmp();
    const masks = fsPlan({ mode: "workspace-write", roots: { projectRoot: join(d, "p"), cwd: join(d, "p"), chatcliHome: join(d, "h", ".chatcli"), userHome: join(d, "h") } }).masks.map((m) => m.path);
    expect(masks).toContain(join(d, "h", ".chatcli", "server"));
    expect(masks).toContain(join(d, "h", ".chatcli", "auth"));
  });
  test("file tools are denied in every mode, through a planted link and a relative path too; the rest of the home is not", () => {
    const d = tmp();
    const home = join(d, ".chatcli");
    mkdirSync(join(home, "server"), { recursive: true });
    writeFileSync(join(home, "server", "7433.token"), "t\n");
    writeFileSync(join(home, "notes.txt"), "n\n");
    symlinkSync(join(home, "server", "7433.token"), join(d, "innocent.txt"));
    for (const mode of ["default", "accept-edits", "bypass", "plan"] as const) {
      // The project is the home directory itself (the worst case: the token dir is inside the project).
      const p = createPermissionPolicy({ homeDir: home, projectRoot: d, userHome: d, mode });
      for (const path of [join(home, "server", "7433.token"), join(home, "server"), "innocent.txt", ".chatcli/server/7433.token", join(home, "auth", "copilot.json")]) {
        expect({ mode, path, action: p.decide({ tool: "read", args: { path }, path }).action }).toEqual({ mode, path, action: "deny" });
      }
      expect(p.decide({ tool: "write", args: { path: "innocent.txt" }, path: "innocent.txt" }).action).toBe("deny");
      expect(p.decide({ tool: "read", args: { path: join(home, "notes.txt") }, path: join(home, "notes.txt") }).action).toBe("allow");
    }
  });
});
