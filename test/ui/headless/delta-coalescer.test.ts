// stream-json's delta merging: close deltas of one message become one line, nothing is lost or reordered.
import { expect, test } from "bun:test";
import type { AgentEvent } from "../../../src/protocol/events.ts";
import { DeltaCoalescer, MAX_HELD_CHARS, MAX_WAIT_MS } from "../../../src/ui/headless/delta-coalescer.ts";

function collect() {
  const out: AgentEvent[] = [];
  return { out, c: new DeltaCoalescer((e) => out.push(e)) };
}

test("a burst of text deltas is one line; another event flushes it first, so the order is kept", () => {
  const { out, c } = collect();
  for (const w of ["Hel", "lo ", "there"]) c.push({ type: "message.delta", messageId: "m1", text: w });
  expect(out).toEqual([]);
  c.push({ type: "tool.updated", callId: "c", output: "x" });
  expect(out).toEqual([
    { type: "message.delta", messageId: "m1", text: "Hello there" },
    { type: "tool.updated", callId: "c", output: "x" },
  ]);
});

test("thinking and text, and two messages, are never merged together", () => {
  const { out, c } = collect();
  c.push({ type: "message.delta", messageId: "m1", thinking: "hm" });
  c.push({ type: "message.delta", messageId: "m1", thinking: "m" });
  c.push({ type: "message.delta", messageId: "m1", text: "A" });
  c.push({ type: "message.delta", messageId: "m2", text: "B" });
  c.push({ type: "message.delta", messageId: "m2", text: "C" });
  c.flush();
  expect(out).toEqual([
    { type: "message.delta", messageId: "m1", thinking: "hmm" },
    { type: "message.delta", messageId: "m1", text: "A" },
    { type: "message.delta", messageId: "m2", text: "BC" },
  ]);
});

test("a held delta is written after MAX_WAIT_MS without another event, and at MAX_HELD_CHARS at once", async () => {
  const { out, c } = collect();
  c.push({ type: "message.delta", messageId: "m1", text: "late" });
  await Bun.sleep(MAX_WAIT_MS * 4);
  expect(out).toEqual([{ type: "message.delta", messageId: "m1", text: "late" }]);
  const big = "x".repeat(MAX_HELD_CHARS);
  c.push({ type: "message.delta", messageId: "m1", text: big });
  expect(out.at(-1)).toEqual({ type: "message.delta", messageId: "m1", text: big });
  c.flush();
  expect(out.length).toBe(2);
});
