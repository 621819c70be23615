import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message, ToolMessage } from "../../../src/protocol/message.ts";
import {
  DEFAULT_BUDGET_CONFIG,
  createBudgetState,
  describeBudgetReport,
  enforceToolResultBudget,
  safeFileId,
  saveOverflow,
  type BudgetOptions,
} from "../../../src/agent/results/budget.ts";
import { assistant, hasLoneSurrogate, numberedLines, tool, user } from "./history-builders.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-budget-test-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function opts(extra: Partial<BudgetOptions> = {}): BudgetOptions {
  return { ...DEFAULT_BUDGET_CONFIG, toolResultsDir: join(dir, "tool-results"), state: createBudgetState(), ...extra };
}

/** The content-addressed name the budget gives a saved result. */
const savedName = (stem: string, content: string): string => `budget_${stem}_${Bun.hash(content).toString(36)}.txt`;

const MARKER = /\n\n\.\.\. \[(\d+) chars omitted — full output saved to (.+)\]\n\n/;

function contentOf(m: Message | undefined): string {
  if (!m || (m.role !== "tool" && m.role !== "user")) throw new Error("not a tool output");
  return m.content;
}

describe("enforceToolResultBudget: per result", () => {
  test("results within limits come back as the same array", () => {
    const h: Message[] = [assistant("", "a"), tool("a", "x".repeat(20_000))];
    const r = enforceToolResultBudget(h, opts());
    expect(r.messages).toBe(h);
    expect(describeBudgetReport(r.report)).toBe("");
  });

  test("an oversized result is saved once and replaced by a head/marker/tail preview", () => {
    const original = numberedLines(1000); // ~61K chars
    const h: Message[] = [user("go"), assistant("", "web_fetch:0"), tool("web_fetch:0", original, "read")];
    const r = enforceToolResultBudget(h, opts());
    const out = r.messages[2] as ToolMessage;
    const m = MARKER.exec(out.content);
    expect(m).not.toBeNull();
    const path = m![2]!;
    expect(path).toBe(join(dir, "tool-results", savedName("web_fetch_0", original)));
    expect(readFileSync(path, "utf8")).toBe(original);
    expect(out.meta?.savedPath).toBe(path);
    expect(out.meta?.originalChars).toBe(original.length);
    expect(out.meta?.originalLines).toBe(1000);

    const [head, tail] = out.content.split(MARKER).filter((_, i) => i === 0 || i === 3);
    expect(head!.length).toBeLessThanOrEqual(4000);
    expect(original.startsWith(head! + "\n")).toBe(true); // cut at a line end
    expect(tail!.length).toBeLessThanOrEqual(1000);
    expect(original.endsWith("\n" + tail!)).toBe(true); // starts on a line start
    expect(Number(m![1])).toBe(original.length - head!.length - tail!.length);
    expect(r.report.truncatedPerResult).toBe(1);
    expect(r.report.filesWritten).toBe(1);
    expect(r.report.charsRemoved).toBe(original.length - out.content.length);
    expect(describeBudgetReport(r.report)).toBe(`budget: 1 result truncated, ${Math.round(r.report.charsRemoved / 1000)}K moved out of context`);
    expect(h[2]!.role === "tool" && h[2]!.content).toBe(original); // input untouched
  });

  test("the limit comes from the options (CHATCLI_TOOL_RESULT_MAX_CHARS)", () => {
    const h: Message[] = [assistant("", "a"), tool("a", numberedLines(200))];
    expect(enforceToolResultBudget(h, opts()).messages).toBe(h);
    const r = enforceToolResultBudget(h, opts({ perResultMaxChars: 6000 }));
    expect(MARKER.test(contentOf(r.messages[1]))).toBe(true);
  });

  test("cuts never split a surrogate pair", () => {
    const original = "😀".repeat(15_000); // 30K code units, no newlines
    const r = enforceToolResultBudget([assistant("", "e"), tool("e", original)], opts());
    const text = contentOf(r.messages[1]);
    expect(MARKER.test(text)).toBe(true);
    expect(hasLoneSurrogate(text)).toBe(false);
  });

  test("text-protocol feedback is budgeted the same way; plain user text is not", () => {
    const big = numberedLines(800);
    const h: Message[] = [assistant("<tool_call .../>"), user(big, { kind: "tool_feedback" }), user(big)];
    const r = enforceToolResultBudget(h, opts());
    const fb = contentOf(r.messages[1]);
    expect(MARKER.exec(fb)![2]).toBe(join(dir, "tool-results", savedName("feedback", big)));
    expect(r.messages[2]).toBe(h[2]!);
  });

  test("a result already saved by the tool layer names that file and writes nothing new", () => {
    const saved = join(dir, "elsewhere.txt");
    const capped = tool("c", numberedLines(500), "exec", { meta: { savedPath: saved, originalChars: 1_000_000 } });
    const r = enforceToolResultBudget([assistant("", "c"), capped], opts());
    const text = contentOf(r.messages[1]);
    expect(MARKER.exec(text)![2]).toBe(saved);
    expect(r.report.filesWritten).toBe(0);
    expect(r.messages[1]!.meta?.originalChars).toBe(1_000_000);
  });
});

describe("enforceToolResultBudget: per turn", () => {
  test("truncates the largest results first until the turn fits", () => {
    const sizes = [19_000, 18_000, 17_500, 17_000, 16_000, 15_000, 15_000, 15_000, 15_000, 15_000, 15_000, 15_000, 15_000];
    const ids = sizes.map((_, i) => `t${i}`);
    const h: Message[] = [assistant("", ...ids), ...sizes.map((n, i) => tool(ids[i]!, numberedLines(Math.ceil(n / 60), 60).slice(0, n)))];
    const total = sizes.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(200_000);
    const r = enforceToolResultBudget(h, opts());
    const out = r.messages.slice(1).map(contentOf);
    const sum = out.reduce((a, s) => a + s.length, 0);
    expect(sum).toBeLessThanOrEqual(200_000);
    expect(r.report.truncatedPerTurn).toBe(1);
    expect(MARKER.test(out[0]!)).toBe(true); // the 19K one went first
    for (const s of out.slice(1)) expect(MARKER.test(s)).toBe(false);
  });

  test("the turn budget is per assistant message, not across the history", () => {
    const turn = (k: number): Message[] => [assistant("", `a${k}`, `b${k}`), tool(`a${k}`, "x".repeat(19_000)), tool(`b${k}`, "y".repeat(19_000))];
    const h: Message[] = [...turn(1), ...turn(2), ...turn(3)];
    const r = enforceToolResultBudget(h, opts({ turnBudgetChars: 30_000 }));
    expect(r.report.truncatedPerTurn).toBe(3); // one per turn
    expect(r.report.truncatedPerResult).toBe(0);
  });
});

describe("enforceToolResultBudget: stability across turns", () => {
  test("the same result keeps the same file and the same preview on every later call", () => {
    const state = createBudgetState();
    const big = numberedLines(900);
    const h: Message[] = [assistant("", "web_fetch:0"), tool("web_fetch:0", big)];
    const first = enforceToolResultBudget(h, opts({ state }));
    // Next turn: the same original history plus a new exchange (the budget runs on an outgoing copy).
    const h2: Message[] = [...h, assistant("", "web_fetch:1"), tool("web_fetch:1", "small")];
    const second = enforceToolResultBudget(h2, opts({ state }));
    expect(contentOf(second.messages[1])).toBe(contentOf(first.messages[1]));
    expect(second.report.filesWritten).toBe(0);
    expect(second.report.previewsReused).toBe(1);
    // A reloaded session has new objects with the same content: still the same preview.
    const reloaded = JSON.parse(JSON.stringify(h2)) as Message[];
    const third = enforceToolResultBudget(reloaded, opts({ state }));
    expect(contentOf(third.messages[1])).toBe(contentOf(first.messages[1]));
    expect(readdirSync(join(dir, "tool-results"))).toEqual([savedName("web_fetch_0", big)]);
  });

  test("the same output object gives the same preview object, reported once (the pipeline re-runs per request)", () => {
    const state = createBudgetState();
    const h: Message[] = [assistant("", "a"), tool("a", numberedLines(900))];
    const first = enforceToolResultBudget(h, opts({ state }));
    const again = enforceToolResultBudget(h, opts({ state }));
    expect(again.messages[1]).toBe(first.messages[1]!);
    expect(first.report.truncatedPerResult).toBe(1);
    expect(again.report.truncatedPerResult).toBe(0);
    expect(describeBudgetReport(again.report)).toBe("");
  });

  test("a resumed session (fresh state, same directory) finds the saved file and gives the very same preview", () => {
    const big = numberedLines(900);
    const h: Message[] = [assistant("", "r1"), tool("r1", big)];
    const before = enforceToolResultBudget(h, opts());
    const reloaded = JSON.parse(JSON.stringify(h)) as Message[];
    const after = enforceToolResultBudget(reloaded, opts());
    expect(contentOf(after.messages[1])).toBe(contentOf(before.messages[1]));
    expect(after.report.filesWritten).toBe(0);
    expect(readdirSync(join(dir, "tool-results"))).toEqual([savedName("r1", big)]);
  });

  test("an already-budgeted history is left alone (same array back)", () => {
    const h: Message[] = [assistant("", "a", "b"), tool("a", numberedLines(900)), tool("b", "z".repeat(150_000))];
    const state = createBudgetState();
    const once = enforceToolResultBudget(h, opts({ state }));
    const twice = enforceToolResultBudget(once.messages, opts({ state }));
    expect(twice.messages).toBe(once.messages);
    // Even with a fresh state (a resumed session), meta.savedPath marks them as done.
    expect(enforceToolResultBudget(once.messages, opts()).messages).toBe(once.messages);
  });

  test("a reused id with different content gets its own file", () => {
    const state = createBudgetState();
    const h: Message[] = [assistant("", "web_fetch:0"), tool("web_fetch:0", "a".repeat(30_000)), assistant("", "web_fetch:0"), tool("web_fetch:0", "b".repeat(30_000))];
    const r = enforceToolResultBudget(h, opts({ state }));
    const p1 = r.messages[1]!.meta?.savedPath;
    const p3 = r.messages[3]!.meta?.savedPath;
    expect(p1).not.toBe(p3);
    expect(readFileSync(p3!, "utf8")).toBe("b".repeat(30_000));
  });

  test("a file name taken by a file of another size moves on to the next number; the stranger's file is kept", () => {
    const resultsDir = join(dir, "tool-results");
    const q = "q".repeat(30_000);
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, savedName("k", q)), "someone else's");
    const first = enforceToolResultBudget([assistant("", "k"), tool("k", q)], opts({ toolResultsDir: resultsDir }));
    expect(first.messages[1]!.meta?.savedPath).toBe(join(resultsDir, savedName("k", q).replace(/\.txt$/, "_2.txt")));
    expect(readFileSync(first.messages[1]!.meta!.savedPath!, "utf8")).toBe(q);
    expect(readFileSync(join(resultsDir, savedName("k", q)), "utf8")).toBe("someone else's");
  });
});

describe("enforceToolResultBudget: failing disk", () => {
  test("a workspace dir replaced by a file: the preview says so, fits the limit, the turn goes on", () => {
    const blocked = join(dir, "tool-results");
    writeFileSync(blocked, "not a directory");
    const h: Message[] = [assistant("", "a", "b"), tool("a", numberedLines(800)), tool("b", "fine")];
    const r = enforceToolResultBudget(h, opts({ toolResultsDir: blocked }));
    const text = contentOf(r.messages[1]);
    expect(text).toContain("[output truncated — disk write failed]");
    expect(text.length).toBeLessThanOrEqual(20_000);
    expect(r.messages[1]!.meta?.savedPath).toBeUndefined();
    expect(r.messages[2]).toBe(h[2]!);
    expect(r.report.diskFailures).toBe(1);
    expect(describeBudgetReport(r.report)).toContain("1 not saved (disk write failed)");
    // Its output is final: a later pass does not cut it again.
    expect(enforceToolResultBudget(r.messages, opts({ toolResultsDir: blocked })).messages).toBe(r.messages);
  });

  test("a write error (disk full) is reported and not cached, so a later pass can still save it", () => {
    const state = createBudgetState();
    const full = (): void => {
      throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
    };
    const h: Message[] = [assistant("", "a"), tool("a", numberedLines(800))];
    const failed = enforceToolResultBudget(h, opts({ state, writeFile: full }));
    expect(contentOf(failed.messages[1])).toContain("[output truncated — disk write failed]");
    const ok = enforceToolResultBudget(h, opts({ state }));
    expect(MARKER.test(contentOf(ok.messages[1]))).toBe(true);
  });

  test("a preview written after a failed save is never cut again by the turn pass", () => {
    let calls = 0;
    const flaky = (path: string, text: string): void => {
      if (calls++ === 0) throw Object.assign(new Error("I/O error"), { code: "EIO" });
      writeFileSync(path, text, { flag: "wx" });
    };
    const a = numberedLines(500, 60, "a");
    const b = numberedLines(500, 60, "b");
    const h: Message[] = [assistant("", "a", "b"), tool("a", a), tool("b", b)];
    const r = enforceToolResultBudget(h, opts({ writeFile: flaky, turnBudgetChars: 10_000 }));
    const first = contentOf(r.messages[1]);
    expect(first.split("[output truncated — disk write failed]")).toHaveLength(2);
    expect(a.startsWith(first.split("\n\n... [")[0]!)).toBe(true);
    for (const f of readdirSync(join(dir, "tool-results"))) {
      expect(readFileSync(join(dir, "tool-results", f), "utf8")).toBe(b); // only a real full output was saved
    }
  });

  test("without a session workspace nothing is saved and the preview says why", () => {
    const r = enforceToolResultBudget([assistant("", "a"), tool("a", "w".repeat(25_000))], opts({ toolResultsDir: undefined }));
    expect(contentOf(r.messages[1])).toContain("[output truncated — no session workspace]");
  });
});

describe("file names and saveOverflow", () => {
  test("ids become file-name safe on every OS", () => {
    expect(safeFileId("web_fetch:0")).toBe("web_fetch_0");
    expect(safeFileId('a/b\\c*d?e"f<g>h|i\u0001j\u007f')).toBe("a_b_c_d_e_f_g_h_i_j_");
    expect(safeFileId("..")).toBe("__");
    expect(safeFileId("")).toBe("call");
    expect(safeFileId("x".repeat(300))).toHaveLength(64);
  });

  test("a hostile id still lands inside the tool-results dir", () => {
    const r = enforceToolResultBudget([assistant("", "../../etc/passwd:1"), tool("../../etc/passwd:1", "p".repeat(30_000))], opts());
    const path = r.messages[1]!.meta?.savedPath ?? "";
    expect(readdirSync(join(dir, "tool-results"))).toEqual([savedName("______etc_passwd_1", "p".repeat(30_000))]);
    expect(readFileSync(path, "utf8")).toHaveLength(30_000);
  });

  test("saveOverflow saves the full text and is idempotent for the same output", () => {
    const resultsDir = join(dir, "tool-results");
    const text = numberedLines(5000);
    const p = saveOverflow({ toolResultsDir: resultsDir }, "exec:7", text);
    expect(p).toBeDefined();
    expect(p!.startsWith(join(resultsDir, "overflow_exec_7_"))).toBe(true);
    expect(readFileSync(p!, "utf8")).toBe(text);
    expect(saveOverflow(resultsDir, "exec:7", text)).toBe(p);
    expect(saveOverflow(resultsDir, "exec:7", text + "!")).not.toBe(p);
  });

  test("saveOverflow returns undefined when it cannot write", () => {
    const blocked = join(dir, "blocked");
    writeFileSync(blocked, "");
    expect(saveOverflow(blocked, "x", "data")).toBeUndefined();
  });
});
