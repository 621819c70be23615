// The live tail's block splitting does not depend on how the answer was cut into deltas: deltas without a line
// break skip the scan (commit-live.ts), and the committed blocks must still be exactly those of the whole text.
import { expect, test } from "bun:test";
import { initialViewState, reduce, type TranscriptItem, type ViewState } from "../../../src/ui/tui/view-model.ts";

const ANSWER = [
  "# Title", "", "Some prose that goes on", "over two lines.", "", "```ts", "const a = 1;", "", "const b = 2;", "```", "",
  "- a list", "- more", "", "~~~", "", "~~~", "", "| a | b |", "|---|---|", "| 1 | 2 |", "", "tail without end",
].join("\n");

function streamed(sizes: number[]): { items: TranscriptItem[]; tail: string } {
  let s: ViewState = initialViewState({ provider: "p", model: "m", permissionMode: "default", displayMode: "full" });
  let i = 0;
  for (let k = 0; i < ANSWER.length; k++) {
    const n = sizes[k % sizes.length]!;
    s = reduce(s, { type: "message.delta", messageId: "m1", text: ANSWER.slice(i, i + n) });
    i += n;
  }
  return { items: s.items, tail: s.live.tail };
}

test("committed blocks and the tail are the same however the answer is cut into deltas", () => {
  const whole = streamed([ANSWER.length]);
  expect(whole.items.map((x) => (x.kind === "markdown" ? x.text : "")).join("|")).toBe(
    "# Title|Some prose that goes on\nover two lines.|```ts\nconst a = 1;\n\nconst b = 2;\n```|- a list\n- more|~~~\n\n~~~|| a | b |\n|---|---|\n| 1 | 2 |",
  );
  expect(whole.tail).toBe("tail without end");
  for (const sizes of [[1], [2], [3, 1], [7], [13, 2, 5], [40]]) expect(streamed(sizes)).toEqual(whole);
});
