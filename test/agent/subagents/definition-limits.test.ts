// Agent definitions for subagents: `timeout` as a duration, `maxTurns`, `isolation`; the built-in general and explore.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadAgentDefinitions } from "../../../src/ext/agents/agent-definition.ts";
import { parseDurationSeconds } from "../../../src/util/duration.ts";

let dir: string | undefined;
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

describe("subagent definitions", () => {
  test("durations: 90s, 10m, 1h, 500ms, a bare number; nonsense is refused", () => {
    expect(parseDurationSeconds("90s")).toBe(90);
    expect(parseDurationSeconds("10m")).toBe(600);
    expect(parseDurationSeconds("1h")).toBe(3600);
    expect(parseDurationSeconds("500ms")).toBe(0.5);
    expect(parseDurationSeconds(45)).toBe(45);
    expect(parseDurationSeconds("soon")).toBeUndefined();
    expect(parseDurationSeconds("0s")).toBeUndefined();
  });

  test("front matter timeout/maxTurns/isolation are read; a bad timeout skips the file with a warning; general and explore are built in", async () => {
    dir = mkdtempSync(join(tmpdir(), "chatcli-defs-"));
    const agents = join(dir, "project", ".chatcli", "agents");
    mkdirSync(agents, { recursive: true });
    writeFileSync(join(agents, "quick.md"), "---\nname: quick\ndescription: quick one\ntimeout: 90s\nmaxTurns: 4\nisolation: worktree\n---\nBe quick.\n");
    writeFileSync(join(agents, "slow.md"), "---\nname: slow\ndescription: slow one\ntimeout: 10m\n---\nTake time.\n");
    writeFileSync(join(agents, "bad.md"), "---\nname: bad\ndescription: bad one\ntimeout: whenever\n---\nx\n");
    const found = await loadAgentDefinitions(join(dir, "project"), join(dir, "home"));
    const by = new Map(found.entries.map((a) => [a.name, a]));
    expect(by.get("quick")).toMatchObject({ timeout: 90, maxTurns: 4, isolation: "worktree" });
    expect(by.get("slow")?.timeout).toBe(600);
    expect(by.has("bad")).toBe(false);
    expect(found.warnings.some((w) => JSON.stringify(w).includes("bad.md"))).toBe(true);
    expect(by.get("explore")?.tools).toEqual(["read", "search", "glob", "tree"]);
    expect(by.get("general")?.tools).toBeUndefined();
  });
});
