// guardStream keeps one idle timer per stream: it fires on a provider that goes quiet for idleMs between events,
// never because the consumer took its time with an event, and an outer abort still ends a read that never settles.
import { expect, test } from "bun:test";
import { guardStream } from "../../src/llm/stream-guard.ts";
import type { LlmEvent } from "../../src/protocol/llm.ts";

const text = (t: string): LlmEvent => ({ type: "text_delta", text: t });
const done: LlmEvent = { type: "done", stopReason: "stop" };

async function collect(it: AsyncIterable<LlmEvent>, onEach?: () => Promise<void>): Promise<LlmEvent[]> {
  const out: LlmEvent[] = [];
  for await (const e of it) {
    out.push(e);
    await onEach?.();
  }
  return out;
}

test("a slow consumer is not a stalled provider", async () => {
  const raw = async function* (): AsyncGenerator<LlmEvent> {
    for (let i = 0; i < 3; i++) yield text(`t${i}`);
    yield done;
  };
  const events = await collect(guardStream(raw, { provider: "test", idleMs: 60 }), () => Bun.sleep(100));
  expect(events.map((e) => e.type)).toEqual(["text_delta", "text_delta", "text_delta", "done"]);
});

test("a provider quiet for longer than idleMs after many quick events is a stall", async () => {
  const raw = async function* (signal: AbortSignal): AsyncGenerator<LlmEvent> {
    for (let i = 0; i < 500; i++) yield text("x");
    await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
    yield done;
  };
  const events = await collect(guardStream(raw, { provider: "test", idleMs: 80 }));
  expect(events.length).toBe(501);
  const last = events.at(-1)!;
  expect(last.type).toBe("error");
  expect(JSON.stringify(last)).toContain("stalled");
});

test("an outer abort ends a read that never settles", async () => {
  const ac = new AbortController();
  const raw = async function* (): AsyncGenerator<LlmEvent> {
    yield text("a");
    await new Promise(() => undefined);
  };
  setTimeout(() => ac.abort(), 30);
  const events = await collect(guardStream(raw, { provider: "test", idleMs: 10_000, signal: ac.signal }));
  expect(events.map((e) => e.type)).toEqual(["text_delta", "error"]);
  expect(JSON.stringify(events[1])).toContain("aborted");
});
