import { describe, expect, test } from "bun:test";
import { MarkupHoldback } from "../../../src/ui/shared/markup-holdback.ts";
import { parseToolCalls } from "../../../src/agent/toolcall-parser.ts";
import { loadCorpus } from "../../support/toolcall-corpus.ts";

/** What a person sees while the message streams in `size`-char deltas (before completion). */
function streamed(input: string, size: number): string {
  let seen = "";
  const h = new MarkupHoldback((s) => {
    seen += s;
  });
  for (let i = 0; i < input.length; i += size) h.push(input.slice(i, i + size));
  return seen;
}

describe("display holdback hides every dialect's markup while it streams", () => {
  const cases = loadCorpus("dialects").filter((c) => c.expected.calls.length > 0);
  for (const c of cases) {
    test(`${c.id} (${c.style})`, () => {
      const display = parseToolCalls(c.input).text;
      for (const size of [1, 5, 64]) {
        const live = streamed(c.input, size);
        // what streamed live is the start of what the transcript shows in the end: no markup leaked
        expect(display.startsWith(live.trimEnd())).toBe(true);
      }
    });
  }

  test("prose without markup streams live (no holding)", () => {
    const text = "The read function is documented.\nUse it wisely; results (if any) follow.\n";
    const live = streamed(text, 4);
    expect(text.startsWith(live)).toBe(true);
    expect(live.length).toBeGreaterThanOrEqual(text.indexOf("results"));
  });
});
