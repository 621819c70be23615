// The session state machine (issue 26 items 1–3, issue 15 item 6): every race is paced by hand with deferred
// promises (the provider's replies, the side tasks' hooks), never by sleeps.
import { afterEach, describe, expect, test } from "bun:test";
import type { Message } from "../../../src/protocol/message.ts";
import type { LlmRequest } from "../../../src/protocol/llm.ts";
import { ScriptedProvider, deferred } from "../../support/scripted-provider.ts";
import { bindingOf, makeSession, type MachineHarness } from "../../support/machine-session.ts";

let h: MachineHarness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

const users = (r: LlmRequest) => r.messages.filter((m) => m.role === "user" && m.meta?.kind !== "tool_feedback").map((m) => m.content);
const readCall = { toolCalls: [{ name: "read", args: { path: "x.txt" } }] };

describe("set_model", () => {
  test("a prompt sent while the switch is in flight waits for it, and every request of its run goes to the new binding", async () => {
    const gate = deferred();
    const a = new ScriptedProvider([{ ...readCall, gate: gate.promise }, { text: "old provider" }]);
    const b = new ScriptedProvider([readCall, { text: "new provider" }]);
    const switched = deferred<ReturnType<typeof bindingOf>>();
    h = makeSession({ binding: bindingOf(a, { id: "A", model: "model-a" }), hooks: { switchModel: () => switched.promise } });
    const s = h.session;
    s.submit({ type: "set_model", provider: "B", model: "model-b" });
    s.submit({ type: "user_input", text: "go" });
    expect(s.status).toBe("side-task");
    expect(h.of("turn.started")).toHaveLength(0);
    switched.resolve(bindingOf(b, { id: "B", model: "model-b", nativeTools: false, contextWindow: 4096 }));
    gate.resolve();
    await s.idle();
    expect(a.requests).toHaveLength(0);
    expect(b.requests).toHaveLength(2);
    for (const r of b.requests) {
      expect(r.model).toBe("model-b");
      expect(r.contextWindow).toBe(4096);
      expect(r.tools).toBeUndefined();
    }
    expect(users(b.requests[0]!)).toEqual(["go"]);
    expect(h.of("model.changed")).toEqual([{ type: "model.changed", provider: "B", model: "model-b", contextWindow: 4096 }]);
    expect(s.model.providerId).toBe("B");
    expect(Object.isFrozen(s.model)).toBe(true);
  });

  test("an unexpected rejection of the switch is an error event; the session stays usable on the old binding", async () => {
    const a = new ScriptedProvider([{ text: "still here" }]);
    const switched = deferred<ReturnType<typeof bindingOf>>();
    h = makeSession({ binding: bindingOf(a, { id: "A", model: "model-a" }), hooks: { switchModel: () => switched.promise } });
    const s = h.session;
    s.submit({ type: "set_model", provider: "B", model: "model-b" });
    switched.reject(new Error("listModels blew up"));
    await s.idle();
    expect(h.of("error").map((e) => e.message).join("\n")).toContain("listModels blew up");
    expect(s.status).toBe("idle");
    s.submit({ type: "user_input", text: "hi" });
    await s.idle();
    expect(a.requests).toHaveLength(1);
    expect(a.requests[0]!.model).toBe("model-a");
  });

  test("an interrupt during the switch releases the slot at once; the switch's late result is dropped", async () => {
    const a = new ScriptedProvider([{ text: "on A" }]);
    const b = new ScriptedProvider([{ text: "on B" }]);
    const switched = deferred<ReturnType<typeof bindingOf>>();
    h = makeSession({ binding: bindingOf(a, { id: "A", model: "model-a" }), hooks: { switchModel: () => switched.promise } });
    const s = h.session;
    s.submit({ type: "set_model", provider: "B", model: "model-b" });
    s.submit({ type: "user_input", text: "hi" });
    s.submit({ type: "interrupt" });
    await s.idle();
    expect(h.of("notice").map((n) => n.text)).toContain("Model switch cancelled; the model is unchanged.");
    switched.resolve(bindingOf(b, { id: "B", model: "model-b" }));
    s.submit({ type: "send_queued" });
    await s.idle();
    expect(s.model.providerId).toBe("A");
    expect(h.of("model.changed")).toHaveLength(0);
    expect(a.requests.map((r) => users(r))).toEqual([["hi"]]);
    expect(b.requests).toHaveLength(0);
  });

  test("a second side task is refused while one holds the slot, with a notice that names it", async () => {
    const a = new ScriptedProvider([]);
    const switched = deferred<ReturnType<typeof bindingOf>>();
    let compacts = 0;
    h = makeSession({ binding: bindingOf(a, { id: "A", model: "model-a" }), hooks: { switchModel: () => switched.promise, compact: async () => (compacts++, undefined) } });
    h.session.submit({ type: "set_model", provider: "B", model: "model-b" });
    h.session.submit({ type: "compact" });
    expect(compacts).toBe(0);
    expect(h.of("notice").at(-1)!.text).toContain("model switch");
    switched.resolve(bindingOf(a, { id: "A", model: "model-a2" }));
    await h.session.idle();
  });
});

describe("compact", () => {
  test("prompts typed during /compact run after it, in order, on the compacted history", async () => {
    const a = new ScriptedProvider([{ text: "one" }, { text: "two" }]);
    const done = deferred();
    const summary: Message = { role: "user", content: "[summary]", meta: { kind: "notice" } };
    h = makeSession({
      binding: bindingOf(a, { id: "A", model: "model-a" }),
      hooks: {
        compact: async () => {
          await done.promise;
          return [summary];
        },
      },
    });
    const s = h.session;
    s.submit({ type: "compact" });
    s.submit({ type: "user_input", text: "first" });
    s.submit({ type: "user_input", text: "also" });
    done.resolve();
    await s.idle();
    s.submit({ type: "user_input", text: "second" });
    await s.idle();
    expect(h.of("turn.started").map((e) => e.input)).toEqual(["first\nalso", "second"]);
    expect(a.requests[0]!.messages[0]).toMatchObject({ content: "[summary]" });
    expect(users(a.requests[1]!).slice(-1)).toEqual(["second"]);
  });

  test("clear during a compaction is refused: the compaction's result is not silently overwritten", async () => {
    const a = new ScriptedProvider([{ text: "answer" }]);
    const done = deferred();
    h = makeSession({
      binding: bindingOf(a, { id: "A", model: "model-a" }),
      hooks: {
        compact: async ({ history }) => {
          await done.promise;
          return history.slice(-1);
        },
      },
    });
    const s = h.session;
    s.submit({ type: "user_input", text: "hello" });
    await s.idle();
    s.submit({ type: "compact" });
    s.submit({ type: "clear" });
    expect(h.of("notice").at(-1)!.text).toContain("compaction");
    done.resolve();
    await s.idle();
    expect(s.messages.map((m) => m.content)).toEqual(["answer"]);
  });

  test("interrupt during a compaction cancels it and keeps what was typed waiting; the next prompt sends it all", async () => {
    const a = new ScriptedProvider([{ text: "ok" }]);
    h = makeSession({
      binding: bindingOf(a, { id: "A", model: "model-a" }),
      hooks: {
        // Like the real summarizer: an abort ends it with the history unchanged.
        compact: ({ signal }) => new Promise((resolve) => signal.addEventListener("abort", () => resolve(undefined), { once: true })),
      },
    });
    const s = h.session;
    s.submit({ type: "compact" });
    s.submit({ type: "user_input", text: "a" });
    s.submit({ type: "interrupt" });
    await s.idle();
    expect(h.of("turn.started")).toHaveLength(0);
    expect(h.of("queue.updated").at(-1)).toEqual({ type: "queue.updated", items: ["a"], paused: true });
    s.submit({ type: "user_input", text: "b" });
    await s.idle();
    expect(h.of("turn.started").map((e) => e.input)).toEqual(["a\nb"]);
    expect(h.of("queue.updated").at(-1)).toEqual({ type: "queue.updated", items: [] });
  });
});

describe("runs", () => {
  test("idle() waits for the run a turn.completed listener submits; that prompt is queued, not a second loop", async () => {
    const a = new ScriptedProvider([{ text: "one" }, { text: "two" }]);
    h = makeSession({ binding: bindingOf(a, { id: "A", model: "model-a" }) });
    const s = h.session;
    let active = 0;
    let overlapped = false;
    let followed = false;
    const statusAtCompleted: string[] = [];
    s.subscribe((e) => {
      if (e.type === "turn.started") overlapped ||= ++active > 1;
      if (e.type === "turn.completed") {
        statusAtCompleted.push(s.status);
        if (!followed) {
          followed = true;
          s.submit({ type: "user_input", text: "follow-up" });
        }
        active--;
      }
    });
    s.submit({ type: "user_input", text: "go" });
    await s.idle();
    expect(h.of("turn.completed")).toHaveLength(2);
    expect(s.status).toBe("idle");
    expect(overlapped).toBe(false);
    expect(statusAtCompleted).toEqual(["running", "running"]);
    expect(h.of("queue.updated")[0]!.items).toEqual(["follow-up"]);
    expect(users(a.requests[1]!)).toEqual(["go", "follow-up"]);
  });

  test("interrupt stops the run and keeps the queue waiting; send_queued sends it", async () => {
    const gate = deferred();
    const a = new ScriptedProvider([{ text: "never", gate: gate.promise }, { text: "queued answer" }]);
    h = makeSession({ binding: bindingOf(a, { id: "A", model: "model-a" }) });
    const s = h.session;
    s.submit({ type: "user_input", text: "go" });
    s.submit({ type: "user_input", text: "q1" });
    s.submit({ type: "user_input", text: "q2" });
    await a.requested(1);
    s.submit({ type: "interrupt" });
    await s.idle();
    expect(h.of("turn.completed").map((e) => e.stopReason)).toEqual(["interrupted"]);
    expect(a.requests).toHaveLength(1);
    expect(h.of("queue.updated").at(-1)).toEqual({ type: "queue.updated", items: ["q1", "q2"], paused: true });
    // Dropping one keeps the rest paused; send_queued sends what is left.
    s.submit({ type: "remove_queued", index: 1 });
    expect(h.of("queue.updated").at(-1)).toEqual({ type: "queue.updated", items: ["q1"], paused: true });
    s.submit({ type: "send_queued" });
    await s.idle();
    expect(h.of("turn.started").map((e) => e.input)).toEqual(["go", "q1"]);
    expect(users(a.requests[1]!).at(-1)).toBe("q1");
  });

  test("a prompt typed while a side task holds a paused queue releases it: both go out when the task ends", async () => {
    const gate = deferred();
    const done = deferred();
    const a = new ScriptedProvider([{ text: "never", gate: gate.promise }, { text: "both" }]);
    h = makeSession({
      binding: bindingOf(a, { id: "A", model: "model-a" }),
      hooks: {
        compact: async () => {
          await done.promise;
          return undefined;
        },
      },
    });
    const s = h.session;
    s.submit({ type: "user_input", text: "go" });
    s.submit({ type: "user_input", text: "q1" });
    await a.requested(1);
    s.submit({ type: "interrupt" });
    await s.idle();
    s.submit({ type: "compact" });
    s.submit({ type: "user_input", text: "q2" });
    expect(h.of("queue.updated").at(-1)).toEqual({ type: "queue.updated", items: ["q1", "q2"] });
    done.resolve();
    await s.idle();
    expect(h.of("turn.started").map((e) => e.input)).toEqual(["go", "q1\nq2"]);
  });

  test("the whole paused queue dropped with remove_queued leaves nothing to send", async () => {
    const gate = deferred();
    const a = new ScriptedProvider([{ text: "never", gate: gate.promise }]);
    h = makeSession({ binding: bindingOf(a, { id: "A", model: "model-a" }) });
    const s = h.session;
    s.submit({ type: "user_input", text: "go" });
    s.submit({ type: "user_input", text: "q1" });
    await a.requested(1);
    s.submit({ type: "interrupt" });
    await s.idle();
    s.submit({ type: "remove_queued", index: 0 });
    expect(h.of("queue.updated").at(-1)).toEqual({ type: "queue.updated", items: [] });
    s.submit({ type: "send_queued" });
    await s.idle();
    expect(h.of("turn.started")).toHaveLength(1);
  });

  test("shutdown during a run ends it; idle() resolves and nothing queued starts", async () => {
    const gate = deferred();
    const a = new ScriptedProvider([{ text: "never", gate: gate.promise }]);
    h = makeSession({ binding: bindingOf(a, { id: "A", model: "model-a" }) });
    const s = h.session;
    s.submit({ type: "user_input", text: "go" });
    s.submit({ type: "user_input", text: "later" });
    await a.requested(1);
    s.submit({ type: "shutdown" });
    await s.idle();
    expect(s.status).toBe("closing");
    expect(h.of("turn.started")).toHaveLength(1);
    expect(h.of("session.ended")).toHaveLength(1);
  });
});

describe("rewind", () => {
  test("a prompt sent while a rewind restores waits for it and runs on the rewound history", async () => {
    const a = new ScriptedProvider([{ text: "first answer" }, { text: "after rewind" }]);
    const restored = deferred();
    h = makeSession({
      binding: bindingOf(a, { id: "A", model: "model-a" }),
      hooks: {
        rewind: async (_op, history) => {
          await restored.promise;
          return { history: history.slice(0, 0), prompt: "hello" };
        },
      },
    });
    const s = h.session;
    s.submit({ type: "user_input", text: "hello" });
    await s.idle();
    s.submit({ type: "rewind", checkpointId: "cp1", mode: "both" });
    s.submit({ type: "user_input", text: "next" });
    expect(h.of("turn.started")).toHaveLength(1);
    restored.resolve();
    await s.idle();
    expect(h.of("rewound")).toHaveLength(1);
    expect(users(a.requests[1]!)).toEqual(["next"]);
    expect(s.messages.map((m) => m.content)).toEqual(["next", "after rewind"]);
  });
});
