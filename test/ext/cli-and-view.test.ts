// The command line (`--agent NAME`, `chatcli agents [list|init]`) and the status line's persona segment.
import { describe, expect, test } from "bun:test";
import { parseArgs, UsageError } from "../../src/cli/args.ts";
import { initialViewState, reduce } from "../../src/ui/tui/view-model.ts";
import { statusText } from "../../src/ui/tui/status-line.ts";
import { join } from "node:path";
import { ExtRuntime } from "../../src/ext/ext-runtime.ts";
import { forgetDiscovery } from "../../src/ext/ext-discovery.ts";
import { extSlashCommands, handleExtSlash } from "../../src/ext/ext-slash.ts";

const parse = (...argv: string[]) => parseArgs(argv, "0.0.0 (test)");

describe("command line", () => {
  test("--agent NAME for the TUI and -p; without a name it is a usage error", () => {
    expect(parse("--agent", "reviewer")).toMatchObject({ kind: "interactive", flags: { agent: "reviewer" } });
    expect(parse("-p", "x", "--agent", "planner")).toMatchObject({ kind: "oneshot", flags: { agent: "planner" } });
    expect(() => parse("--agent", "")).toThrow(UsageError);
  });

  test("chatcli agents [list|init] [--force]", () => {
    expect(parse("agents")).toMatchObject({ kind: "agents", action: "list", force: false });
    expect(parse("agents", "init", "--force")).toMatchObject({ kind: "agents", action: "init", force: true });
    expect(() => parse("agents", "remove")).toThrow(UsageError);
  });
});

describe("status line", () => {
  test("persona.changed shows the persona; without a name it goes away", () => {
    const s0 = initialViewState({ provider: "OLLAMA", model: "qwen3:8b", permissionMode: "default", displayMode: "full" });
    const s1 = reduce(s0, { type: "persona.changed", name: "reviewer" }, 0);
    expect(statusText(s1, 0, 0)).toContain("agent: reviewer");
    // Narrow: the persona stays (short form) after the provider and context figures went.
    expect(statusText(s1, 0, 0, undefined, 40)).toContain("reviewer");
    const s2 = reduce(s1, { type: "persona.changed" }, 0);
    expect(statusText(s2, 0, 0)).not.toContain("reviewer");
  });
});

describe("slash commands typed before discovery has run", () => {
  test("are answered once it has: a skill loads, an unknown name is reported", async () => {
    forgetDiscovery();
    const F = join(import.meta.dir, "../fixtures/ext");
    const rt = new ExtRuntime({ roots: { projectRoot: join(F, "project"), chatcliHome: join(F, "user/.chatcli") }, addReadPath: () => undefined });
    expect(rt.isReady).toBe(false);
    const early = handleExtSlash(rt, "sql-style", "");
    expect(early).toBeDefined();
    expect(await early).toContain("sql-style");
    expect(rt.activation("sql-style")).toEqual({ kind: "user" });
    expect(await handleExtSlash(rt, "no-such-thing", "")).toBeUndefined();
    // user-invocable: false — not a /name (the model may still load it), and not in the completion list.
    expect(handleExtSlash(rt, "style-background", "")).toBeUndefined();
    expect(extSlashCommands(rt).some((c) => c.name === "style-background")).toBe(false);
    expect(extSlashCommands(rt).find((c) => c.name === "sql-style")?.description).toContain("(user)");
    const rt2 = new ExtRuntime({ roots: { projectRoot: join(F, "project"), chatcliHome: join(F, "user/.chatcli") }, addReadPath: () => undefined });
    expect(await handleExtSlash(rt2, "no-such-thing", "")).toContain("/no-such-thing");
  });
});

describe("chatcli agents init", () => {
  test("writes every built-in as a file that loads back to the same definition, and keeps edited files", async () => {
    const { mkdtempSync, rmSync, writeFileSync, readFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { initAgents } = await import("../../src/ext/agents/init-agents.ts");
    const { loadAgentDefinitions } = await import("../../src/ext/agents/agent-definition.ts");
    const { BUILTIN_AGENTS } = await import("../../src/ext/agents/builtin-agents.ts");
    const root = mkdtempSync(join(tmpdir(), "chatcli-agents-init-"));
    try {
      const r = await initAgents(root);
      expect(r.written).toHaveLength(BUILTIN_AGENTS.length);
      const loaded = await loadAgentDefinitions(root, join(root, "home"), { builtins: false });
      expect(loaded.warnings).toEqual([]);
      for (const b of BUILTIN_AGENTS) {
        const f = loaded.entries.find((a) => a.name === b.name)!;
        expect(f.source.scope).toBe("project");
        expect({ description: f.description, tools: f.tools, prompt: f.prompt, permissionMode: f.permissionMode }).toEqual({ description: b.description, tools: b.tools, prompt: b.prompt, permissionMode: b.permissionMode });
      }
      const edited = join(root, ".chatcli/agents/reviewer.md");
      writeFileSync(edited, "---\nname: reviewer\ndescription: mine\n---\nMy reviewer.\n");
      const again = await initAgents(root);
      expect(again.written).toEqual([]);
      expect(again.kept).toContain(edited);
      expect(readFileSync(edited, "utf8")).toContain("My reviewer.");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
