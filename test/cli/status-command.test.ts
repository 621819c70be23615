import { afterEach, expect, test } from "bun:test";
import { statusCommandText } from "../../src/cli/status-command.ts";
import { sandboxNotice, sandboxStatusLabel } from "../../src/sandbox/describe.ts";
import { setLang } from "../../src/i18n/i18n.ts";
import type { SandboxStatus } from "../../src/sandbox/types.ts";

afterEach(() => setLang("en"));
const sb = (s: SandboxStatus, network = false) => ({ status: () => s, network });

test("/status names provider, model, permission mode and the sandbox state", () => {
  const text = statusCommandText({ provider: "OLLAMA", model: "qwen3:8b", mode: "default", sandbox: sb({ state: "active", mode: "workspace-write", kind: "bwrap" }) });
  expect(text).toContain("Provider: OLLAMA");
  expect(text).toContain("Model: qwen3:8b");
  expect(text).toContain("Permission mode: default");
  expect(text).toContain("Sandbox: workspace-write (bubblewrap), network closed");
});

test("/status gives the reason when no sandbox can run; pt-BR too", () => {
  const unavailable = sb({ state: "unavailable", mode: "workspace-write", reason: "bwrap (bubblewrap) is not installed" });
  expect(statusCommandText({ provider: "P", model: "m", mode: "default", sandbox: unavailable })).toContain("unavailable: bwrap (bubblewrap) is not installed");
  setLang("pt-BR");
  expect(statusCommandText({ provider: "P", model: "m", mode: "default", sandbox: unavailable })).toContain("indisponível: bwrap (bubblewrap) is not installed");
});

test("the start-up notice warns only when no sandbox can run; the status line names off/unavailable only", () => {
  expect(sandboxNotice({ state: "unavailable", mode: "workspace-write", reason: "r" }, false).level).toBe("warn");
  expect(sandboxNotice({ state: "off" }, true).level).toBe("info");
  expect(sandboxNotice({ state: "active", mode: "read-only", kind: "bwrap" }, false).text).toContain("read-only (bubblewrap)");
  expect(sandboxStatusLabel({ state: "active", mode: "workspace-write", kind: "bwrap" })).toBeUndefined();
  expect(sandboxStatusLabel({ state: "off" })).toBe("sandbox off");
  expect(sandboxStatusLabel({ state: "unavailable", mode: "workspace-write", reason: "r" })).toBe("no sandbox");
});
