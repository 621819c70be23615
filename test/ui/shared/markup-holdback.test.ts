// Headless text output streams prose but never the text-protocol tool-call markup, whatever the chunking.
import { expect, test } from "bun:test";
import { MarkupHoldback } from "../../../src/ui/shared/markup-holdback.ts";

function feed(text: string, size: number, shown: string): { out: string; beforeCompletion: string } {
  let out = "";
  const h = new MarkupHoldback((s) => (out += s));
  for (let i = 0; i < text.length; i += size) h.push(text.slice(i, i + size));
  const beforeCompletion = out;
  h.complete(shown);
  return { out, beforeCompletion };
}

const cases: Array<{ name: string; text: string; shown: string }> = [
  { name: "self-closing tag", text: `Let me look.\n<tool_call name="read" args='{"path":"a"}' />`, shown: "Let me look.\n" },
  { name: "upper-case tag", text: `Reading.<TOOL_CALL name="read" args='{}'></TOOL_CALL>`, shown: "Reading." },
  { name: "JSON fallback", text: `Sure: {"tool_call": "read", "args": {"path": "a"}}`, shown: "Sure: " },
  { name: "fenced json", text: 'Now:\n```json\n{"tool_call":"read","args":{}}\n```', shown: "Now:\n" },
  { name: "plain answer", text: "The answer is 42, see `x < y`.", shown: "The answer is 42, see `x < y`." },
];

for (const c of cases) {
  test(`${c.name}: output equals the displayed text for every chunk size`, () => {
    for (const size of [1, 2, 3, 7, 1000]) {
      const r = feed(c.text, size, c.shown);
      expect(r.out).toBe(c.shown);
      expect(r.beforeCompletion.toLowerCase()).not.toContain("tool_call");
    }
  });
}

test("prose streams before completion; a held tail that was not markup is written at completion", () => {
  const r = feed("Hello there, friend.", 4, "Hello there, friend.");
  expect(r.beforeCompletion).toBe("Hello there, friend.");
  const j = feed('{"name": "Ada"} is a JSON object', 3, '{"name": "Ada"} is a JSON object');
  expect(j.beforeCompletion).toBe("");
  expect(j.out).toBe('{"name": "Ada"} is a JSON object');
});
