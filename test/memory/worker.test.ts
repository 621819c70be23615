// The extraction worker with a fake clock and a scripted model: cadence (≥ 4 new messages), the 2-minute cooldown,
// the 3-minute ticker, the 180 s timeout, retries, the local-provider rule (idle only, yields to a turn), modes.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { AgentEvent } from "../../src/protocol/events.ts";
import type { LlmRequest } from "../../src/protocol/llm.ts";
import { MemoryWorker, COOLDOWN_MS, TICK_MS } from "../../src/memory/worker.ts";
import type { MemoryMode } from "../../src/memory/types.ts";
import { FakeClock, FakeSession, flush, tempMemory } from "./helpers.ts";

const FACT = JSON.stringify({ LONGTERM: [{ text: "The user prefers tabs for indentation", subject: "indentation" }] });
const usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
const completed: AgentEvent = { type: "turn.completed", turnId: "t", stopReason: "stop", usage, totalUsage: usage, contextTokens: 0, contextWindow: 8192 };

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function setup(o: { mode?: MemoryMode; local?: boolean; replies?: Array<string | Error | "hang"> } = {}) {
  const m = tempMemory();
  const clock = new FakeClock();
  const session = new FakeSession();
  const requests: LlmRequest[] = [];
  const signals: AbortSignal[] = [];
  const replies = [...(o.replies ?? [])];
  const worker = new MemoryWorker({
    store: m.store,
    session,
    sessionId: () => "s1",
    mode: o.mode ?? "propose",
    model: "fast",
    local: o.local ?? false,
    redact: (s) => s.replaceAll("sk-secret-value-123456", "[REDACTED]"),
    clock,
    extract: (r, signal) => {
      requests.push(r);
      signals.push(signal);
      const next = replies.shift() ?? "NOTHING_NEW";
      if (next === "hang") return new Promise((_res, rej) => signal.addEventListener("abort", () => rej(new Error("aborted"))));
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
  });
  worker.start();
  cleanups.push(() => worker.close(), m.cleanup);
  return { ...m, clock, session, worker, requests, signals };
}

describe("cadence and cooldown", () => {
  test("no extraction before 4 new messages; one after the answer that makes 4", async () => {
    const s = setup({ replies: [FACT] });
    s.session.exchange("I prefer tabs for indentation");
    s.session.emit(completed);
    await flush();
    expect(s.requests).toHaveLength(0);
    s.session.exchange("and I never use spaces");
    s.session.emit(completed);
    await flush();
    await s.worker.whenIdle();
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0]!.purpose).toBe("memory");
    expect(s.requests[0]!.messages[0]!.content).toContain("I prefer tabs for indentation");
    const inbox = s.store.facts().filter((f) => f.status === "proposed");
    expect(inbox.map((f) => f.text)).toEqual(["The user prefers tabs for indentation"]);
    expect(inbox[0]!.source).toEqual({ kind: "session", sessionId: "s1", messages: [0, 4] });
  });

  test("the 2-minute cooldown holds the next extraction back, then lets it run", async () => {
    const s = setup({ replies: [FACT, "NOTHING_NEW"] });
    s.session.exchange("I prefer tabs");
    s.session.exchange("I always use bun");
    s.session.emit(completed);
    await flush();
    await s.worker.whenIdle();
    expect(s.requests).toHaveLength(1);
    s.session.exchange("my name is Ada");
    s.session.exchange("I work on the parser");
    s.clock.advance(COOLDOWN_MS - 1_000);
    s.session.emit(completed);
    await flush();
    expect(s.requests).toHaveLength(1);
    s.clock.advance(1_000);
    s.session.emit(completed);
    await flush();
    await s.worker.whenIdle();
    expect(s.requests).toHaveLength(2);
    // Only the new messages are sent the second time.
    expect(s.requests[1]!.messages[0]!.content).not.toContain("I prefer tabs");
  });

  test("the 3-minute ticker takes what a quiet session left (even one exchange)", async () => {
    const s = setup({ replies: [FACT] });
    s.session.exchange("I prefer tabs for indentation");
    s.session.emit(completed);
    await flush();
    expect(s.requests).toHaveLength(0);
    s.clock.advance(TICK_MS);
    await flush();
    await s.worker.whenIdle();
    expect(s.requests).toHaveLength(1);
  });

  test("a slice without anything personal costs no model call", async () => {
    const s = setup();
    s.session.exchange("read a.txt");
    s.session.exchange("now list the files");
    s.session.emit(completed);
    s.clock.advance(TICK_MS);
    await flush();
    await s.worker.flush();
    expect(s.requests).toHaveLength(0);
  });
});

describe("failures are retried, not lost", () => {
  test("an error leaves the range pending; the next chance sends it again", async () => {
    const s = setup({ replies: [new Error("connection refused"), FACT] });
    s.session.exchange("I prefer tabs");
    s.session.exchange("I always use bun");
    s.session.emit(completed);
    await flush();
    await s.worker.whenIdle();
    expect(s.store.facts()).toHaveLength(0);
    expect(s.worker.pending).toBe(4);
    s.clock.advance(TICK_MS);
    await flush();
    await s.worker.whenIdle();
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]!.messages[0]!.content).toContain("I prefer tabs");
    expect(s.store.facts()).toHaveLength(1);
    expect(s.worker.pending).toBe(0);
  });

  test("the 180 s timeout aborts a hung extraction, which is retried", async () => {
    const s = setup({ replies: ["hang", FACT] });
    s.session.exchange("I prefer tabs");
    s.session.exchange("I always use bun");
    s.session.emit(completed);
    await flush();
    expect(s.signals[0]!.aborted).toBe(false);
    s.clock.advance(179_000);
    expect(s.signals[0]!.aborted).toBe(false);
    s.clock.advance(1_000);
    expect(s.signals[0]!.aborted).toBe(true);
    await s.worker.whenIdle();
    expect(s.worker.pending).toBe(4);
    await s.worker.flush();
    expect(s.store.facts()).toHaveLength(1);
  });

  test("malformed replies are retried, and given up after three", async () => {
    const s = setup({ replies: ["Sure! Here are the memories you asked for.", "```\nnot json\n```", "{\"foo\": 1}"] });
    s.session.exchange("I prefer tabs");
    s.session.exchange("I always use bun");
    for (let i = 0; i < 3; i++) {
      s.clock.advance(TICK_MS);
      await flush();
      await s.worker.whenIdle();
    }
    expect(s.requests).toHaveLength(3);
    expect(s.worker.pending).toBe(0);
    expect(s.store.facts()).toHaveLength(0);
  });
});

describe("local provider: never competes with a turn", () => {
  test("does not start while the session runs; a turn that starts aborts it; it is retried after the turn", async () => {
    const s = setup({ local: true, replies: ["hang", FACT] });
    s.session.exchange("I prefer tabs");
    s.session.exchange("I always use bun");
    s.session.status = "running";
    s.session.emit(completed);
    s.clock.advance(TICK_MS);
    await flush();
    expect(s.requests).toHaveLength(0);
    s.session.status = "idle";
    s.clock.advance(TICK_MS);
    await flush();
    expect(s.requests).toHaveLength(1);
    s.session.status = "running";
    s.session.emit({ type: "turn.started", turnId: "t2", input: "next" });
    expect(s.signals[0]!.aborted).toBe(true);
    await s.worker.whenIdle();
    s.session.exchange("thanks");
    s.session.status = "idle";
    s.session.emit(completed); // no cooldown after a yield: retried at once
    await flush();
    await s.worker.whenIdle();
    expect(s.requests).toHaveLength(2);
    expect(s.store.facts()).toHaveLength(1);
  });
});

describe("modes", () => {
  test("auto stores active facts; read-only and off extract nothing", async () => {
    const auto = setup({ mode: "auto", replies: [FACT] });
    auto.session.exchange("I prefer tabs");
    auto.session.exchange("I always use bun");
    await auto.worker.flush();
    expect(auto.store.facts().map((f) => f.status)).toEqual(["active"]);
    for (const mode of ["read-only", "off"] as const) {
      const s = setup({ mode, replies: [FACT] });
      s.session.exchange("I prefer tabs");
      s.session.exchange("I always use bun");
      s.session.emit(completed);
      s.clock.advance(TICK_MS);
      await s.worker.flush();
      expect(s.requests).toHaveLength(0);
    }
  });

  test("secrets never reach the extraction model", async () => {
    const s = setup({ replies: [FACT] });
    s.session.exchange("I always deploy with the key sk-secret-value-123456");
    await s.worker.flush();
    expect(JSON.stringify(s.requests[0])).not.toContain("sk-secret-value-123456");
    expect(JSON.stringify(s.requests[0])).toContain("[REDACTED]");
  });
});

describe("what a session could not extract is not lost", () => {
  test("the model down at exit: the range is kept in state.json and the next session extracts it from the saved session", async () => {
    const m = tempMemory();
    cleanups.push(m.cleanup);
    const saved = new Map<string, FakeSession["messages"]>();
    const make = (sessionId: string, session: FakeSession, replies: Array<string | Error>, requests: LlmRequest[]) => {
      const w = new MemoryWorker({
        store: m.store,
        session,
        sessionId: () => sessionId,
        mode: "propose",
        model: "fast",
        local: false,
        redact: (s) => s,
        clock: new FakeClock(),
        loadSession: (id) => saved.get(id),
        extract: (r) => {
          requests.push(r);
          const next = replies.shift() ?? "NOTHING_NEW";
          return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
        },
      });
      w.start();
      cleanups.push(() => w.close());
      return w;
    };
    const s1 = new FakeSession();
    const r1: LlmRequest[] = [];
    const w1 = make("s1", s1, [new Error("connection refused"), new Error("connection refused")], r1);
    s1.exchange("I prefer tabs for indentation");
    s1.emit(completed);
    await flush();
    await w1.flush();
    expect(r1).toHaveLength(1);
    saved.set("s1", s1.messages);
    expect(readFileSync(m.store.paths.state, "utf8")).toContain('"sessionId": "s1"');

    const s2 = new FakeSession();
    const r2: LlmRequest[] = [];
    const w2 = make("s2", s2, [FACT], r2);
    s2.exchange("hello");
    s2.emit(completed);
    await flush();
    await w2.whenIdle();
    expect(r2).toHaveLength(1);
    expect(r2[0]!.messages[0]!.content).toContain("I prefer tabs for indentation");
    const f = m.store.facts()[0]!;
    expect(f.source).toEqual({ kind: "session", sessionId: "s1", messages: [0, 2] });
    expect(readFileSync(m.store.paths.state, "utf8")).not.toContain('"sessionId": "s1"');
  });
});
