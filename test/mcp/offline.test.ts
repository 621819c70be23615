// `--offline` promises no network but the provider: remote MCP servers are not started, and the user is told which.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMcpRuntime } from "../../src/mcp/runtime/create-runtime.ts";

function runtime(offline: boolean, home: string) {
  const warnings: string[] = [];
  const m = createMcpRuntime({
    home,
    projectRoot: home,
    cwd: home,
    userServers: { remote: { type: "http", url: "http://127.0.0.1:9/mcp" }, local: { command: "true" } },
    userFile: join(home, "settings.json"),
    configFiles: [],
    strict: false,
    env: {},
    childEnv: {},
    clientVersion: "test",
    binding: () => ({ providerId: "OLLAMA", nativeTools: true, contextWindow: 32_000 }),
    warn: (w) => warnings.push(w),
    offline,
  });
  return { m, warnings };
}

test("--offline: remote servers are left out with one notice naming them; stdio servers stay", () => {
  const home = mkdtempSync(join(tmpdir(), "mcp-offline-"));
  try {
    const off = runtime(true, home);
    expect(off.warnings).toEqual(["--offline: remote MCP servers not started: remote"]);
    expect(off.m?.servers.map((s) => s.name)).toEqual(["local"]);
    off.m?.killNow();
    const on = runtime(false, home);
    expect(on.warnings).toEqual([]);
    expect(on.m?.servers.map((s) => s.name).sort()).toEqual(["local", "remote"]);
    on.m?.killNow();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
