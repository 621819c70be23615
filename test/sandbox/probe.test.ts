// Detection: a missing or refused bwrap makes the sandbox unavailable with the reason, and then exec runs
// unwrapped and the policy asks as without a sandbox (never a silent "contained" claim).
import { afterEach, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setLang } from "../../src/i18n/i18n.ts";
import { runProbe } from "../../src/sandbox/probe.ts";
import { createSandboxRuntime } from "../../src/sandbox/sandbox.ts";
import { createPermissionPolicy } from "../../src/tool/permission.ts";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("bwrap not on PATH → unavailable: not installed", async () => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-probe-"));
  expect(await runProbe("linux", { PATH: dir })).toEqual({ ok: false, reason: "bwrap (bubblewrap) is not installed" });
});

test("pt-BR: the reason a person reads at start-up is Portuguese", async () => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-probe-"));
  setLang("pt-BR");
  try {
    expect(await runProbe("linux", { PATH: dir })).toEqual({ ok: false, reason: "o bwrap (bubblewrap) não está instalado" });
    expect(await runProbe("win32", {})).toEqual({ ok: false, reason: "não há sandbox em Windows" });
  } finally {
    setLang("en");
  }
});

test("bwrap refused by the kernel → unavailable with bwrap's own message", async () => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-probe-"));
  const fake = join(dir, "bwrap");
  writeFileSync(fake, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n");
  chmodSync(fake, 0o755);
  const r = await runProbe("linux", { PATH: `${dir}:/usr/bin:/bin` });
  expect(r).toEqual({ ok: false, reason: "bwrap cannot run here: bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." });
});

test("Windows has no sandbox", async () => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-probe-"));
  expect(await runProbe("win32", {})).toEqual({ ok: false, reason: "no sandbox on Windows" });
});

test("an unavailable sandbox: no exec backend, and the policy asks for a write-ish command", async () => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-probe-"));
  const rt = createSandboxRuntime({ mode: "workspace-write", network: false, roots: { projectRoot: dir, cwd: dir, chatcliHome: join(dir, ".chatcli"), userHome: dir }, probe: () => runProbe("linux", { PATH: dir }) });
  expect(rt.status()).toEqual({ state: "pending", mode: "workspace-write" });
  expect(await rt.ready()).toEqual({ state: "unavailable", mode: "workspace-write", reason: "bwrap (bubblewrap) is not installed" });
  expect(rt.exec()).toBeUndefined();
  const policy = createPermissionPolicy({ homeDir: join(dir, ".chatcli"), projectRoot: dir, sandbox: { mode: rt.mode, get active() { return rt.status().state === "active"; }, network: false } });
  expect(policy.decide({ tool: "exec", args: { command: "touch x" } }).action).toBe("ask");
});

test("mode off: no probe, no backend", async () => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-probe-"));
  let probed = false;
  const rt = createSandboxRuntime({ mode: "off", network: false, roots: { projectRoot: dir, cwd: dir, chatcliHome: dir, userHome: dir }, probe: async () => ((probed = true), { ok: false, reason: "x" }) });
  expect(await rt.ready()).toEqual({ state: "off" });
  expect(rt.exec()).toBeUndefined();
  expect(probed).toBe(false);
});
