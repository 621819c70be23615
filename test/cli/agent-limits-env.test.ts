// CHATCLI_AGENT_PLUGIN_MAX_TURNS (default 50, at most 200) and CHATCLI_AGENT_EARLY_EXIT_TURNS (default 3) reach the loop.
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { earlyExitFromEnv, maxTurnsFromEnv } from "../../src/cli/wire-session.ts";
import { harness, type Harness } from "../support/agent-harness.ts";

let h: Harness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

test("max turns: default 50, clamped to 200, invalid or non-positive values mean 50", () => {
  expect(maxTurnsFromEnv({})).toBe(50);
  expect(maxTurnsFromEnv({ CHATCLI_AGENT_PLUGIN_MAX_TURNS: "7" })).toBe(7);
  expect(maxTurnsFromEnv({ CHATCLI_AGENT_PLUGIN_MAX_TURNS: "500" })).toBe(200);
  for (const v of ["0", "-3", "abc", ""]) expect(maxTurnsFromEnv({ CHATCLI_AGENT_PLUGIN_MAX_TURNS: v })).toBe(50);
  expect(earlyExitFromEnv({})).toBe(3);
  expect(earlyExitFromEnv({ CHATCLI_AGENT_EARLY_EXIT_TURNS: "5" })).toBe(5);
});

test("CHATCLI_AGENT_PLUGIN_MAX_TURNS stops a session's run", async () => {
  const call = (i: number) => ({ toolCalls: [{ name: "glob", args: { pattern: `*.${i}` } }] });
  h = harness({ env: { CHATCLI_AGENT_PLUGIN_MAX_TURNS: "2" }, replies: [call(1), call(2), call(3), call(4)] });
  await h.run("go");
  expect(h.provider.requests).toHaveLength(2);
  expect(h.of("turn.completed")[0]!.stopReason).toBe("max_turns");
});

test("CHATCLI_AGENT_EARLY_EXIT_TURNS=2 stops after the same batch twice in a row", async () => {
  const same = { toolCalls: [{ name: "read", args: { path: "s.txt" } }] };
  h = harness({ env: { CHATCLI_AGENT_EARLY_EXIT_TURNS: "2" }, replies: [same, same, same, same] });
  writeFileSync(join(h.project, "s.txt"), "s");
  await h.run("go");
  expect(h.provider.requests).toHaveLength(2);
  expect(h.of("turn.completed")[0]!.stopReason).toBe("stagnation");
});
