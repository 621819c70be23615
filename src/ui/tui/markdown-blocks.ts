/**
 * Splits streamed markdown into finished top-level blocks and an unfinished tail.
 * A block is finished at a blank line outside a ``` / ~~~ fence; only complete lines are considered, so a
 * half-received line never closes a block. Concatenating `finished` + `rest` gives back the input exactly.
 *
 * Incremental: `scanFinishedBlocks(tail, scan)` resumes where the previous call stopped, so while an answer
 * streams only the lines received since the last chunk are looked at (a long code fence is not re-scanned per
 * chunk). The returned `scan` is relative to the returned `rest`, and valid only for a `rest` that grows by
 * appending; `tailLength` lets the caller check that.
 */
export interface BlockScan {
  /** Offset in the tail of the first line not yet scanned. */
  lineStart: number;
  /** The open fence marker, or null outside a fence. */
  fence: string | null;
  /** The current block has a non-blank line. */
  sawContent: boolean;
  /** Length of the tail this scan belongs to. */
  tailLength: number;
}

export const FRESH_SCAN: BlockScan = { lineStart: 0, fence: null, sawContent: false, tailLength: 0 };

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

export function scanFinishedBlocks(text: string, from: BlockScan = FRESH_SCAN): { finished: string[]; rest: string; scan: BlockScan } {
  const finished: string[] = [];
  let blockStart = 0;
  let lineStart = from.lineStart <= text.length ? from.lineStart : 0;
  let fence = lineStart ? from.fence : null;
  let sawContent = lineStart ? from.sawContent : false;
  for (;;) {
    const nl = text.indexOf("\n", lineStart);
    if (nl < 0) break;
    const line = text.slice(lineStart, nl);
    const fenceMatch = FENCE.exec(line);
    if (fence) {
      if (fenceMatch && fenceMatch[1]!.startsWith(fence) && line.trim().replace(/[`~]/g, "") === "") fence = null;
    } else if (fenceMatch) {
      fence = fenceMatch[1]!;
      sawContent = true;
    } else if (!/\S/.test(line)) {
      if (sawContent) {
        finished.push(text.slice(blockStart, nl + 1));
        blockStart = nl + 1;
        sawContent = false;
      }
    } else sawContent = true;
    lineStart = nl + 1;
  }
  const rest = blockStart ? text.slice(blockStart) : text;
  return { finished, rest, scan: { lineStart: lineStart - blockStart, fence, sawContent, tailLength: rest.length } };
}

export function splitFinishedBlocks(text: string): { finished: string[]; rest: string } {
  const { finished, rest } = scanFinishedBlocks(text);
  return { finished, rest };
}
