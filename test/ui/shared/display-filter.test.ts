import { describe, expect, test } from "bun:test";
import { DisplayFilter } from "../../../src/ui/shared/display-filter.ts";
import type { AgentEvent } from "../../../src/protocol/events.ts";

function feed(f: DisplayFilter, id: string, chunks: string[], displayText?: string): AgentEvent[] {
  const out: AgentEvent[] = [];
  let partial = "";
  for (const c of chunks) {
    partial += c;
    out.push(...f.apply({ type: "message.delta", messageId: id, text: c }));
  }
  out.push(...f.apply({ type: "message.completed", messageId: id, message: { role: "assistant", content: partial }, ...(displayText !== undefined ? { displayText } : {}) }));
  return out;
}

const shownText = (evs: AgentEvent[]) => evs.filter((e) => e.type === "message.delta").map((e) => (e as { text?: string }).text ?? "").join("");

describe("DisplayFilter", () => {
  test("markup split across deltas never reaches the rendered stream; the completion carries the display text", () => {
    const f = new DisplayFilter();
    const evs = feed(f, "m1", ["Let me look.\n<to", "ol_call name=\"read\" ", "args='{\"path\":\"a\"}' />"], "Let me look.");
    expect(shownText(evs)).toBe("Let me look.\n");
    const done = evs.at(-1)!;
    expect(done.type).toBe("message.completed");
    expect((done as Extract<AgentEvent, { type: "message.completed" }>).message.content).toBe("Let me look.");
    for (const e of evs) if (e.type === "message.delta") expect(e.text ?? "").not.toContain("<tool");
  });

  test("prose after a call is released at completion as a last delta", () => {
    const f = new DisplayFilter();
    const evs = feed(f, "m1", ["Before ", "<tool_call name=\"x\" />", " after"], "Before  after");
    expect(shownText(evs)).toBe("Before  after");
    expect(evs.filter((e) => e.type === "message.delta").at(-1)!.type).toBe("message.delta");
  });

  test("plain answers pass through unchanged, delta by delta", () => {
    const f = new DisplayFilter();
    const evs = feed(f, "m1", ["Hello ", "world"]);
    expect(evs.map((e) => e.type)).toEqual(["message.delta", "message.delta", "message.completed"]);
    expect(shownText(evs)).toBe("Hello world");
  });

  test("thinking deltas and other events pass; a new message resets the held state", () => {
    const f = new DisplayFilter();
    expect(f.apply({ type: "message.delta", messageId: "m1", thinking: "hmm" })[0]).toMatchObject({ thinking: "hmm" });
    f.apply({ type: "message.delta", messageId: "m1", text: "<tool_call" });
    const next = feed(f, "m2", ["fresh text"]);
    expect(shownText(next)).toBe("fresh text");
    expect(f.apply({ type: "notice", level: "info", text: "x" })).toEqual([{ type: "notice", level: "info", text: "x" }]);
  });
});
