// Issue 5: the tool-result pipeline's one-line report shows in the transcript in every display mode.
import { expect, test } from "bun:test";
import { initialViewState, reduce } from "../../../src/ui/tui/view-model.ts";

for (const displayMode of ["full", "compact"] as const) {
  test(`pipeline summary line in ${displayMode} mode`, () => {
    const s = reduce(initialViewState({ provider: "ollama", model: "m", permissionMode: "default", displayMode }), {
      type: "pipeline",
      stage: "microcompact",
      summary: "microcompact: 3 truncated, 1 summarized, 41K freed",
    });
    expect(JSON.stringify(s.items)).toContain("microcompact: 3 truncated, 1 summarized, 41K freed");
  });
}
