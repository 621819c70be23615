// runAgent on its own: a RunDeps over a plain history array, the real reply parsing and a real tool host on a
// temp project, driven by scripted providers paced by hand (no sleeps).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NOT_EXECUTED_RESULT, runAgent } from "../../src/agent/loop.ts";
import type { RunDeps } from "../../src/agent/run-deps.ts";
import { finishAssistant } from "../../src/agent/session/assistant-reply.ts";
import { createToolHost } from "../../src/agent/tool-host-impl.ts";
import type { ToolHost } from "../../src/agent/tool-host.ts";
import { createPathPolicy } from "../../src/tool/workspace.ts";
import { createPermissionPolicy } from "../../src/tool/permission.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import { validateToolResultPairing } from "../../src/agent/results/pairing.ts";
import type { Message } from "../../src/protocol/message.ts";
import { ScriptedProvider, deferred } from "../support/scripted-provider.ts";

let project: string;
let tools: ToolHost;
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "chatcli-loop-"));
  writeFileSync(join(project, "a.txt"), "alpha");
  writeFileSync(join(project, "b.txt"), "beta");
  tools = createToolHost({
    projectRoot: project,
    cwd: project,
    paths: createPathPolicy({ projectRoot: project, extraReadPaths: [] }),
    policy: createPermissionPolicy({ homeDir: join(project, ".home"), projectRoot: project, mode: "bypass" }),
    env: {},
  });
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

interface LoopRig {
  deps: RunDeps;
  history: Message[];
  events: AgentEvent[];
  recovered: number[];
}

/** `providers` serve the model calls in turn (the last one keeps serving), as bindings read per request would. */
function rig(providers: ScriptedProvider[], o: { maxTurns?: number; earlyExitTurns?: number; onEvent?: (e: AgentEvent) => void; recover?: boolean } = {}): LoopRig {
  const history: Message[] = [{ role: "user", content: "task" }];
  const events: AgentEvent[] = [];
  const recovered: number[] = [];
  let seq = 0;
  let call = 0;
  const newId = (p: string) => `${p}_${++seq}`;
  const deps: RunDeps = {
    tools,
    limits: { maxTurns: o.maxTurns ?? 10, earlyExitTurns: o.earlyExitTurns ?? 3 },
    emit: (e) => {
      events.push(e);
      o.onEvent?.(e);
    },
    newId,
    now: () => 0,
    drainQueue: () => undefined,
    buildRequest: async () => {
      const provider = providers[Math.min(call++, providers.length - 1)]!;
      return { provider, request: { model: `m${call}`, system: [], messages: [...history], purpose: "main", tools: tools.specs() } };
    },
    finishAssistant: (text, thinking, nativeCalls) => finishAssistant({ opts: { tools }, seq, newId }, text, thinking, nativeCalls),
    append: (m) => void history.push(m),
    appendToolResults: (results) => void history.push(...results),
    requestApproval: async () => "once",
    recordUsage: () => undefined,
    ...(o.recover ? { recoverOverflow: async (attempt: number) => (recovered.push(attempt), true) } : {}),
  };
  return { deps, history, events, recovered };
}

const toolResults = (h: Message[]) => h.filter((m): m is Extract<Message, { role: "tool" }> => m.role === "tool");

describe("runAgent", () => {
  test("an answer without calls ends the run with the model's stop reason and one assistant message", async () => {
    const p = new ScriptedProvider([{ text: "hello", chunks: 3, inputTokens: 7, outputTokens: 2 }]);
    const r = rig([p]);
    const out = await runAgent(r.deps, new AbortController().signal);
    expect(out).toEqual({ stopReason: "stop", usage: { inputTokens: 7, outputTokens: 2, cachedInputTokens: 0, reasoningTokens: 0 } });
    expect(r.history.at(-1)).toEqual({ role: "assistant", content: "hello" });
    expect(r.events.filter((e) => e.type === "message.delta")).toHaveLength(3);
  });

  test("each model call goes to the provider its request was prepared with; results feed the next call in order", async () => {
    const first = new ScriptedProvider([{ toolCalls: [{ name: "read", args: { path: "a.txt" } }, { name: "read", args: { path: "b.txt" } }] }]);
    const second = new ScriptedProvider([{ text: "done" }]);
    const r = rig([first, second]);
    const out = await runAgent(r.deps, new AbortController().signal);
    expect(out.stopReason).toBe("stop");
    expect(first.requests.map((q) => q.model)).toEqual(["m1"]);
    expect(second.requests.map((q) => q.model)).toEqual(["m2"]);
    const results = toolResults(second.requests[0]!.messages);
    expect(results.map((m) => m.content.includes("alpha") || m.content.includes("beta"))).toEqual([true, true]);
    expect(results[0]!.content).toContain("alpha");
    expect(validateToolResultPairing(r.history)).toBe(true);
  });

  test("an interrupt while the model streams ends the run as interrupted and appends nothing", async () => {
    const p = new ScriptedProvider([{ text: "never", gate: deferred().promise }]);
    const r = rig([p]);
    const controller = new AbortController();
    const run = runAgent(r.deps, controller.signal);
    await p.requested(1);
    controller.abort();
    expect((await run).stopReason).toBe("interrupted");
    expect(r.history).toEqual([{ role: "user", content: "task" }]);
  });

  test("an interrupt during a batch: the started call reports it, the rest are not executed, every call has a result", async () => {
    const controller = new AbortController();
    const p = new ScriptedProvider([{ toolCalls: [{ name: "read", args: { path: "a.txt" } }, { name: "read", args: { path: "b.txt" } }] }]);
    const r = rig([p], { onEvent: (e) => e.type === "tool.started" && controller.abort() });
    expect((await runAgent(r.deps, controller.signal)).stopReason).toBe("interrupted");
    const results = toolResults(r.history);
    // The tool host sees the aborted signal before it runs the read.
    expect(results[0]!).toMatchObject({ isError: true, content: expect.stringContaining("interrupted") });
    expect(results[1]!.content).toBe(NOT_EXECUTED_RESULT);
    expect(validateToolResultPairing(r.history)).toBe(true);
    expect(p.requests).toHaveLength(1);
  });

  test("the turn limit and stagnation stop a model that never finishes", async () => {
    const again = { toolCalls: [{ name: "read", args: { path: "a.txt" } }] };
    const limited = rig([new ScriptedProvider([], again)], { maxTurns: 2, earlyExitTurns: 0 });
    expect((await runAgent(limited.deps, new AbortController().signal)).stopReason).toBe("max_turns");
    expect(limited.events.some((e) => e.type === "notice" && e.text.includes("2"))).toBe(true);
    const stuck = rig([new ScriptedProvider([], again)], { earlyExitTurns: 2 });
    expect((await runAgent(stuck.deps, new AbortController().signal)).stopReason).toBe("stagnation");
    expect(stuck.history.at(-1)!.content).toContain("[stagnation detected]");
  });

  test("a reply cut at the output limit is continued on the same provider and stored as one message", async () => {
    const p = new ScriptedProvider([{ text: "part one, ", stopReason: "length" }, { text: "part two" }]);
    const other = new ScriptedProvider([{ text: "wrong provider" }]);
    const r = rig([p, other]);
    expect((await runAgent(r.deps, new AbortController().signal)).stopReason).toBe("stop");
    expect(p.requests.map((q) => q.purpose)).toEqual(["main", "continuation"]);
    expect(other.requests).toHaveLength(0);
    expect(r.history.at(-1)).toEqual({ role: "assistant", content: "part one, part two" });
  });

  test("a request rejected as too large is shrunk and prepared again", async () => {
    const p = new ScriptedProvider([{ error: { kind: "context_too_long", message: "too long" } }, { text: "fits now" }]);
    const r = rig([p], { recover: true });
    expect((await runAgent(r.deps, new AbortController().signal)).stopReason).toBe("stop");
    expect(r.recovered).toEqual([1]);
    expect(p.requests.map((q) => q.model)).toEqual(["m1", "m2"]);
    expect(r.events.some((e) => e.type === "error")).toBe(false);
  });
});
