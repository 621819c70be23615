/**
 * Splits streamed markdown into finished top-level blocks and an unfinished tail.
 * A block is finished at a blank line outside a ``` / ~~~ fence; only complete lines are considered, so a
 * half-received line never closes a block. Concatenating `finished` + `rest` gives back the input exactly.
 */
export function splitFinishedBlocks(text: string): { finished: string[]; rest: string } {
  const finished: string[] = [];
  let blockStart = 0;
  let lineStart = 0;
  let fence: string | null = null;
  let sawContent = false;
  for (;;) {
    const nl = text.indexOf("\n", lineStart);
    if (nl < 0) break;
    const line = text.slice(lineStart, nl);
    const trimmed = line.trim();
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (fenceMatch && fenceMatch[1]!.startsWith(fence) && trimmed.replace(/[`~]/g, "") === "") fence = null;
    } else if (fenceMatch) {
      fence = fenceMatch[1]!;
      sawContent = true;
    } else if (trimmed === "") {
      if (sawContent) {
        finished.push(text.slice(blockStart, nl + 1));
        blockStart = nl + 1;
        sawContent = false;
      }
    } else sawContent = true;
    lineStart = nl + 1;
  }
  return { finished, rest: text.slice(blockStart) };
}
