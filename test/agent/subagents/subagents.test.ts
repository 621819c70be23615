// The `agent` tool end to end inside runAgent: children with their own scripted providers on one endpoint.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolHost } from "../../../src/agent/tool-host.ts";
import { ScriptedProvider, deferred } from "../../support/scripted-provider.ts";
import { subagentPickerFlow } from "../../../src/cli/subagent-picker.ts";
import { foldSubagent, type SubagentRow } from "../../../src/ui/shared/subagent-view.ts";
import { agentCall, subagentRig, toolResults, type Rig } from "./subagent-rig.ts";

let rig: Rig | undefined;
afterEach(() => rig?.cleanup());

describe("subagents", () => {
  test("four children on an endpoint with 2 slots: never more than 2 requests in flight, every result returned in call order", async () => {
    const names = ["a", "b", "c", "d"];
    const children = Object.fromEntries(names.map((n) => [n, { provider: new ScriptedProvider([{ text: `result ${n}`, chunks: 5, delayMs: 3 }]) }]));
    const main = new ScriptedProvider([{ toolCalls: names.map((n) => agentCall(n, `look at ${n}`)) }, { text: "done" }]);
    rig = subagentRig({ main, children, limit: 2 });
    const out = await rig.run();
    expect(out.stopReason).toBe("stop");
    expect(rig.inFlight.peak).toBe(2);
    expect(rig.runtime.scheduler.stats("SCRIPTED@test")?.peak).toBe(2);
    expect(toolResults(rig.history).map((m) => m.content)).toEqual(names.map((n) => `result ${n}`));
    // The parent's next request carries all four results.
    const last = main.requests.at(-1)!;
    for (const n of names) expect(JSON.stringify(last.messages)).toContain(`result ${n}`);
    const done = rig.published.filter((e) => e.type === "subagent.completed");
    expect(done).toHaveLength(4);
    expect(rig.published.every((e) => !("parentId" in e) || e.parentId === "main")).toBe(true);
  });

  test("children with a limit of 1 run strictly one after another", async () => {
    const children = Object.fromEntries(["x", "y", "z"].map((n) => [n, { provider: new ScriptedProvider([{ text: `r-${n}`, chunks: 3, delayMs: 2 }]) }]));
    const main = new ScriptedProvider([{ toolCalls: ["x", "y", "z"].map((n) => agentCall(n, n)) }, { text: "ok" }]);
    rig = subagentRig({ main, children, limit: 1 });
    await rig.run();
    expect(rig.inFlight.peak).toBe(1);
    expect(toolResults(rig.history).map((m) => m.content)).toEqual(["r-x", "r-y", "r-z"]);
  });

  test("the main session's own requests never wait behind children holding every slot", async () => {
    const gate = deferred();
    const children = { slow: { provider: new ScriptedProvider([{ text: "slow done", gate: gate.promise }]) }, queued: { provider: new ScriptedProvider([{ text: "queued done" }]) } };
    const main = new ScriptedProvider([{ toolCalls: [agentCall("slow", "s"), agentCall("queued", "q")] }, { text: "final" }]);
    rig = subagentRig({ main, children, limit: 1 });
    const running = rig.run();
    await children.slow.provider.requested(1);
    const stats = rig.runtime.scheduler.stats("SCRIPTED@test")!;
    expect(stats.active).toBe(1);
    expect(stats.waiting).toBe(1);
    // A request of the main session on the same endpoint (e.g. its compaction or the next turn) is served now.
    const side = new ScriptedProvider([{ text: "main answer" }]);
    let text = "";
    for await (const ev of side.stream({ model: "main", system: [], messages: [], purpose: "main" })) if (ev.type === "text_delta") text += ev.text;
    expect(text).toBe("main answer");
    expect(children.queued.provider.requests).toHaveLength(0);
    gate.resolve();
    await running;
    expect(toolResults(rig.history).map((m) => m.content)).toEqual(["slow done", "queued done"]);
  });

  test("a hung child times out with a partial result while the others' results arrive", async () => {
    const never = deferred();
    const children = {
      hung: { provider: new ScriptedProvider([{ text: "never", gate: never.promise }]), def: { timeout: 0.2 } },
      ok1: { provider: new ScriptedProvider([{ text: "first result" }]) },
      ok2: { provider: new ScriptedProvider([{ text: "second result" }]) },
    };
    const main = new ScriptedProvider([{ toolCalls: [agentCall("hung", "h"), agentCall("ok1", "1"), agentCall("ok2", "2")] }, { text: "summary" }]);
    rig = subagentRig({ main, children, limit: 3 });
    const out = await rig.run();
    expect(out.stopReason).toBe("stop");
    const results = toolResults(rig.history);
    expect(results[0]!.content).toContain("[partial result: subagent hung");
    expect(results[0]!.content).toContain("timed out");
    expect(results[0]!.isError).toBe(true);
    expect(results.slice(1).map((m) => m.content)).toEqual(["first result", "second result"]);
    const hung = rig.published.find((e) => e.type === "subagent.completed" && e.agent === "hung");
    expect(hung && hung.type === "subagent.completed" && hung.status).toBe("timeout");
  });

  test("one child cancelled alone: the others finish, its result is marked cancelled", async () => {
    const never = deferred();
    const children = { stuck: { provider: new ScriptedProvider([{ text: "x", gate: never.promise }]) }, fine: { provider: new ScriptedProvider([{ text: "fine result" }]) } };
    const main = new ScriptedProvider([{ toolCalls: [agentCall("stuck", "s"), agentCall("fine", "f")] }, { text: "end" }]);
    rig = subagentRig({ main, children, limit: 2 });
    const running = rig.run();
    await children.stuck.provider.requested(1);
    const stuck = rig.runtime.running().find((c) => c.agent === "stuck")!;
    expect(rig.runtime.cancel(stuck.agentId)).toBe(true);
    await running;
    const results = toolResults(rig.history);
    expect(results[0]!.content).toContain("was cancelled");
    expect(results[1]!.content).toBe("fine result");
  });

  test("the agents picker: a running child's live transcript, cancelling it alone; the finished one's transcript", async () => {
    const never = deferred();
    const children = { stuck: { provider: new ScriptedProvider([{ text: "x", gate: never.promise }]) }, fine: { provider: new ScriptedProvider([{ text: "fine result" }]) } };
    const main = new ScriptedProvider([{ toolCalls: [agentCall("stuck", "s"), agentCall("fine", "f")] }, { text: "end" }]);
    rig = subagentRig({ main, children, limit: 2 });
    const running = rig.run();
    await children.stuck.provider.requested(1);
    const r = rig;
    const rows = () => r.published.reduce<SubagentRow[]>((acc, e) => (e.type === "subagent.started" || e.type === "subagent.progress" || e.type === "subagent.completed" ? foldSubagent(acc, e, 0) : acc), []);
    const saved = () => new Map(r.published.flatMap((e) => (e.type === "subagent.completed" && e.messages ? [[e.agentId, e.messages] as const] : [])));
    const flow = () =>
      subagentPickerFlow({
        rows,
        transcript: (id) => r.runtime.children.find((c) => c.agentId === id && c.endedAt === undefined)?.history ?? saved().get(id),
        cancel: (id) => r.runtime.cancel(id),
      })!;
    const stuck = r.runtime.running().find((c) => c.agent === "stuck")!;
    type Step = { items: Array<{ value: string }>; pick(v: string): Promise<unknown> };
    const actions = (await flow().pick(stuck.agentId)) as Step;
    expect(actions.items.map((i) => i.value)).toEqual(["show", "cancel"]);
    expect(((await actions.pick("show")) as { notice: string }).notice).toContain("› s");
    expect(((await actions.pick("cancel")) as { notice: string }).notice).toContain(`Cancelled subagent ${stuck.agentId}.`);
    await running;
    expect(toolResults(rig.history)[1]!.content).toBe("fine result");
    const fine = rows().find((x) => x.agent === "fine")!;
    const fineActions = (await flow().pick(fine.agentId)) as Step;
    expect(fineActions.items.map((i) => i.value)).toEqual(["show"]);
    expect(((await fineActions.pick("show")) as { notice: string }).notice).toContain("fine result");
  });

  test("a cancelled turn cancels every child and keeps the history valid", async () => {
    const never = deferred();
    const children = { one: { provider: new ScriptedProvider([{ text: "x", gate: never.promise }]) }, two: { provider: new ScriptedProvider([{ text: "y", gate: never.promise }]) } };
    const main = new ScriptedProvider([{ toolCalls: [agentCall("one", "1"), agentCall("two", "2")] }]);
    rig = subagentRig({ main, children, limit: 2 });
    const ac = new AbortController();
    const running = rig.run(ac.signal);
    await children.two.provider.requested(1);
    ac.abort();
    const out = await running;
    expect(out.stopReason).toBe("interrupted");
    const results = toolResults(rig.history);
    expect(results).toHaveLength(2);
    expect(rig.runtime.running()).toHaveLength(0);
  });

  test("a child's write to a file another child is writing waits for it", async () => {
    const hold = deferred();
    const order: string[] = [];
    const wrapTools = (inner: ToolHost): ToolHost => ({
      ...inner,
      run: async (call, ctx) => {
        const content = String(call.args?.content ?? "");
        order.push(`start ${content}`);
        if (content === "first") await hold.promise;
        const r = await inner.run(call, ctx);
        order.push(`end ${content}`);
        return r;
      },
    });
    const children = {
      w1: { provider: new ScriptedProvider([{ toolCalls: [{ name: "write", args: { path: "shared.txt", content: "first" } }] }, { text: "w1 wrote" }]) },
      w2: { provider: new ScriptedProvider([{ toolCalls: [{ name: "write", args: { path: "shared.txt", content: "second" } }] }, { text: "w2 wrote" }]) },
    };
    const main = new ScriptedProvider([{ toolCalls: [agentCall("w1", "write first"), agentCall("w2", "write second")] }, { text: "both wrote" }]);
    rig = subagentRig({ main, children, limit: 2, wrapTools });
    const running = rig.run();
    await children.w2.provider.requested(1);
    await Bun.sleep(0);
    // w1 holds the lock inside its write; w2's write has not reached the tool.
    await until(() => rig!.runtime.locks.held.size === 1);
    expect([...rig.runtime.locks.held][0]).toBe(join(rig.project, "shared.txt"));
    expect(order).toEqual(["start first"]);
    hold.resolve();
    await running;
    expect(order).toEqual(["start first", "end first", "start second", "end second"]);
    expect(readFileSync(join(rig.project, "shared.txt"), "utf8")).toBe("second");
  });

  test("a text-protocol model dispatches children with <agent_call>", async () => {
    const children = { explore: { provider: new ScriptedProvider([{ text: "found it in src/a.ts" }]) }, general: { provider: new ScriptedProvider([{ text: "general answer" }]) } };
    const main = new ScriptedProvider([{ text: 'Delegating.\n<agent_call agent="explore" task="find a"/>\n<agent_call agent="general" task="do b"/>' }, { text: "all done" }]);
    rig = subagentRig({ main, children, limit: 2, nativeTools: false });
    const out = await rig.run();
    expect(out.stopReason).toBe("stop");
    expect(children.explore.provider.requests[0]!.messages[0]!.content).toBe("find a");
    const feedback = main.requests[1]!.messages.at(-1)!.content;
    expect(feedback).toContain("found it in src/a.ts");
    expect(feedback).toContain("general answer");
  });

  test("a child gets only its allowlisted tools and a fresh context", async () => {
    const children = { explore: { provider: new ScriptedProvider([{ text: "read-only answer" }]), def: { tools: ["read", "search", "glob", "tree"] } } };
    const main = new ScriptedProvider([{ toolCalls: [agentCall("explore", "where is x?")] }, { text: "ok" }]);
    rig = subagentRig({ main, children, limit: 1 });
    await rig.run();
    const req = children.explore.provider.requests[0]!;
    expect(req.tools?.map((t) => t.name).sort()).toEqual(["glob", "read", "search", "tree"]);
    expect(req.messages).toHaveLength(1);
    expect(req.system[0]!.text).toBe("You are explore.");
  });
});

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await Bun.sleep(1);
  expect(cond()).toBe(true);
}

describe("isolation: worktree", () => {
  test("the child writes in a git worktree; the main tree is untouched until the returned diff is applied", async () => {
    const main = new ScriptedProvider([{ toolCalls: [agentCall("iso", "change the greeting")] }, { text: "ok" }]);
    const children = {
      iso: {
        provider: new ScriptedProvider([{ toolCalls: [{ name: "write", args: { path: "hello.txt", content: "hello from the child\n" } }, { name: "write", args: { path: "new.txt", content: "new file\n" } }] }, { text: "changed hello.txt, added new.txt" }]),
        def: { isolation: "worktree" },
      },
    };
    const outside = mkdtempSync(join(tmpdir(), "chatcli-wt-"));
    try {
      const spillDir = join(outside, "spill");
      mkdirSync(spillDir);
      let n = 0;
      rig = subagentRig({ main, children, limit: 1, worktreeDir: join(outside, "worktrees"), spill: (_id, text) => { const f = join(spillDir, `s${++n}.patch`); writeFileSync(f, text); return f; } });
      const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: rig!.project, env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
      git("init", "-q");
      writeFileSync(join(rig.project, "hello.txt"), "hello\n");
      git("add", "-A");
      git("commit", "-qm", "init");
      await rig.run();
      const result = toolResults(rig.history)[0]!.content;
      expect(result).toContain("changed hello.txt, added new.txt");
      expect(result).toContain("NOT in the project yet");
      // The main tree is untouched; the worktree is gone.
      expect(readFileSync(join(rig.project, "hello.txt"), "utf8")).toBe("hello\n");
      expect(existsSync(join(rig.project, "new.txt"))).toBe(false);
      expect(String(git("worktree", "list").stdout).trim().split("\n")).toHaveLength(1);
      const patch = /apply it with `git apply ([^`]+)`/.exec(result)![1]!;
      expect(git("apply", patch).exitCode).toBe(0);
      expect(readFileSync(join(rig.project, "hello.txt"), "utf8")).toBe("hello from the child\n");
      expect(readFileSync(join(rig.project, "new.txt"), "utf8")).toBe("new file\n");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
