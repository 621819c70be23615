// Append-only persistence (issue 26, reproductions 4 and 5) through a real wired Session: real tools, the real
// result pipeline and recorder, a scripted provider. The session file stays O(history) and is fsynced once per
// turn (counted through the store's file calls, not timed); a resumed session rebuilds the same history, sends
// the same text, and finds the full outputs its previews name.
import { afterEach, describe, expect, test } from "bun:test";
import * as nodeFs from "node:fs";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pipelineOptionsFromEnv } from "../../src/agent/results/options.ts";
import { createBudgetState } from "../../src/agent/results/budget.ts";
import { runResultPipeline } from "../../src/agent/results/pipeline.ts";
import { resultBudgetForWindow } from "../../src/agent/compaction/window-result-budget.ts";
import type { Message } from "../../src/protocol/message.ts";
import { loadSession, type SessionFs } from "../../src/store/session-file.ts";
import { harness, type Harness } from "../support/agent-harness.ts";

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function track(h: Harness): Harness {
  cleanups.push(() => h.cleanup());
  return h;
}

/** Real file calls, with the fsyncs counted. */
function countingFs(): { fs: SessionFs; fsyncs: () => number } {
  let n = 0;
  const fs: SessionFs = {
    openSync: (path, flags, mode) => nodeFs.openSync(path, flags, mode),
    writeSync: (fd, buf, offset, length) => nodeFs.writeSync(fd, buf, offset, length),
    readSync: (fd, buf, offset, length, position) => nodeFs.readSync(fd, buf, offset, length, position),
    fsyncSync: (fd) => {
      n++;
      nodeFs.fsyncSync(fd);
    },
    fstatSync: (fd) => nodeFs.fstatSync(fd),
    ftruncateSync: (fd, len) => nodeFs.ftruncateSync(fd, len),
    closeSync: (fd) => nodeFs.closeSync(fd),
  };
  return { fs, fsyncs: () => n };
}

/** `lines` numbered lines of ~60 chars: big enough for microcompaction (and the budget, when long). */
function sourceFile(i: number, lines: number): string {
  return Array.from({ length: lines }, (_, k) => `file ${i} line ${k} ${"abcdefghij".repeat(4)}`).join("\n") + "\n";
}

const readTurn = (i: number) => [{ toolCalls: [{ name: "read", args: { path: `src${i}.txt` } }] }, { text: `read ${i}` }];

const sessionFileOf = (h: Harness) => h.wired.recorder!.file;

const MARKER = /full output saved to (\S+?)\]/;

describe("the session file stays O(history) (reproduction 4)", () => {
  test("40 read turns: the file is within 3× the history's JSON, nothing is replaced, one fsync per turn", async () => {
    const TURNS = 40;
    const counter = countingFs();
    const h = track(harness({ replies: Array.from({ length: TURNS }, (_, i) => readTurn(i)).flat(), storeFs: counter.fs, mode: "bypass" }));
    for (let i = 0; i < TURNS; i++) writeFileSync(join(h.project, `src${i}.txt`), sourceFile(i, 80));
    const fsyncsPerTurn: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      const before = counter.fsyncs();
      await h.run(`read src${i}.txt`);
      fsyncsPerTurn.push(counter.fsyncs() - before);
    }
    // Old results were microcompacted in the requests…
    expect(h.of("pipeline").some((e) => e.stage === "microcompact")).toBe(true);
    const last = h.provider.requests.at(-1)!.messages;
    expect(last.filter((m) => m.role === "tool" && m.content.startsWith("[Old tool result cleared")).length).toBeGreaterThan(30);
    // …while the file only grew by appends (it was 2.13 MB with 38 full-history `replace` records),
    const history = h.wired.session.messages;
    const file = sessionFileOf(h);
    const historyBytes = JSON.stringify(history).length;
    expect(statSync(file).size).toBeLessThanOrEqual(3 * historyBytes);
    const text = readFileSync(file, "utf8");
    const types = text.trim().split("\n").map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types.filter((t) => t === "replace" || t === "history")).toEqual([]);
    // and the history keeps what the tools returned.
    expect(history.filter((m) => m.role === "tool" && m.content.includes("file 0 line 79"))).toHaveLength(1);
    // Once per turn (at turn.completed), not once per record.
    expect(fsyncsPerTurn.every((n) => n === 1)).toBe(true);
    h.wired.dispose();
    expect(counter.fsyncs()).toBeLessThanOrEqual(TURNS + 1);
    // The file rebuilds the very same history.
    const loaded = loadSession(file);
    expect(loaded.warnings).toEqual([]);
    expect(JSON.stringify(loaded.history)).toBe(JSON.stringify(history));
  }, 60_000);

  test("a resumed session sends exactly what the live one sent (same files, same previews)", async () => {
    const h = track(harness({ replies: Array.from({ length: 7 }, (_, i) => readTurn(i)).flat(), mode: "bypass" }));
    // Big enough for the budget (saved + preview) as well as microcompaction.
    for (let i = 0; i < 7; i++) writeFileSync(join(h.project, `src${i}.txt`), sourceFile(i, 600));
    let historyAtLastPrompt = 0;
    for (let i = 0; i < 7; i++) {
      if (i === 6) historyAtLastPrompt = h.wired.session.messages.length + 1;
      await h.run(`read src${i}.txt`);
    }
    const requestsOfLastTurn = h.provider.requests.slice(-2);
    const live = requestsOfLastTurn[0]!.messages.filter((m) => m.role !== "system");
    expect(live.some((m) => MARKER.test(m.content))).toBe(true);
    h.wired.dispose();
    // What a resumed process computes: the loaded history (new objects), a fresh budget state, the same dir.
    const loaded = loadSession(sessionFileOf(h));
    const env = { HOME: h.home, CHATCLI_HOME: join(h.home, ".chatcli") };
    const again = runResultPipeline(loaded.history.slice(0, historyAtLastPrompt) as Message[], {
      options: resultBudgetForWindow(pipelineOptionsFromEnv(env), 32768, env),
      budgetState: createBudgetState(),
      toolResultsDir: join(h.home, ".chatcli", "sessions", loaded.meta.id, "tool-results"),
    });
    expect(again.budget.filesWritten).toBe(0);
    expect(JSON.stringify(again.messages)).toBe(JSON.stringify(live));
  }, 60_000);
});

describe("overflow files live with the session (reproduction 5)", () => {
  test("after --resume, the model's read of the path its preview names returns the full output", async () => {
    const first = track(harness({ replies: [{ toolCalls: [{ name: "read", args: { path: "big.txt" } }] }, { text: "it is big" }], mode: "bypass" }));
    const big = sourceFile(1, 600);
    writeFileSync(join(first.project, "big.txt"), big);
    await first.run("read big.txt");
    const preview = first.provider.requests[1]!.messages.find((m) => m.role === "tool")!.content;
    const saved = MARKER.exec(preview)![1]!;
    const id = first.wired.recorder!.id;
    first.wired.dispose(); // the process ends: its temp workspace is deleted
    expect(existsSync(first.wired.workspace!.root)).toBe(false);

    const loaded = loadSession(sessionFileOf(first));
    const second = harness({ root: first.root, resume: loaded, mode: "bypass", replies: [{ toolCalls: [{ name: "read", args: { path: saved, offset: 590, limit: 20 } }] }, { text: "read it again" }] });
    cleanups.push(() => second.wired.dispose());
    await second.run("show me the end of the saved output");
    const result = second.of("tool.completed")[0]!;
    expect(result.isError).toBe(false);
    expect(result.result).toContain("file 1 line 599");
    // The resumed request carries the same preview, naming the same file, kept with the session.
    expect(second.provider.requests[0]!.messages.find((m) => m.role === "tool")!.content).toBe(preview);
    expect(saved.startsWith(join(first.home, ".chatcli", "sessions", id, "tool-results"))).toBe(true);
  }, 30_000);

  test("deleting a session deletes its saved outputs", async () => {
    const h = track(harness({ replies: [{ toolCalls: [{ name: "read", args: { path: "big.txt" } }] }, { text: "ok" }], mode: "bypass" }));
    writeFileSync(join(h.project, "big.txt"), sourceFile(2, 600));
    await h.run("read big.txt");
    const id = h.wired.recorder!.id;
    h.wired.dispose();
    const dir = h.wired.store.dataDirFor(id);
    expect(existsSync(join(dir, "tool-results"))).toBe(true);
    expect(h.wired.store.delete(id)).toEqual({ id });
    expect(existsSync(dir)).toBe(false);
  }, 30_000);
});

describe("compaction in the file", () => {
  test("/compact: one history record with the summary and the kept range; kept results stay as the tools returned them", async () => {
    const h = track(harness({ replies: Array.from({ length: 6 }, (_, i) => readTurn(i)).flat(), mode: "bypass" }));
    for (let i = 0; i < 6; i++) writeFileSync(join(h.project, `src${i}.txt`), sourceFile(i, 600));
    for (let i = 0; i < 6; i++) await h.run(`read src${i}.txt`);
    h.provider.push({ text: "## Summary\nThe user had six files read; nothing else is pending." });
    const replaced = new Promise<void>((resolve) => h.wired.session.subscribe((e) => e.type === "history.replaced" && resolve()));
    h.wired.session.submit({ type: "compact" });
    await replaced;
    const history = h.wired.session.messages;
    expect(history.some((m) => m.content.includes("six files read"))).toBe(true);
    // What compaction kept of the recent turns is in the history as it happened, not as the request's preview.
    const keptResult = history.findLast((m) => m.role === "tool")!;
    expect(keptResult.content).toContain("file 5 line 599");
    expect(keptResult.content).not.toContain("chars omitted");
    h.wired.recorder!.close();
    const recs = readFileSync(sessionFileOf(h), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string; parts?: Array<{ keep?: [string, string]; id?: string }> });
    const rebuilt = recs.filter((r) => r.type === "history");
    expect(rebuilt).toHaveLength(1);
    const parts = rebuilt[0]!.parts!;
    expect(parts.some((p) => p.keep)).toBe(true);
    // Small: the new messages and the kept range, not the 200 KB of history.
    expect(JSON.stringify(rebuilt[0]).length).toBeLessThan(JSON.stringify(history).length / 4);
    const loaded = loadSession(sessionFileOf(h));
    expect(loaded.warnings).toEqual([]);
    expect(JSON.stringify(loaded.history)).toBe(JSON.stringify(history));
  }, 60_000);
});

describe("rewind in the file", () => {
  test("a conversation rewind is a history record; the file rebuilds the rewound history, then the turns after it", async () => {
    const h = track(harness({ replies: Array.from({ length: 6 }, (_, i) => readTurn(i)).flat(), mode: "bypass" }));
    for (let i = 0; i < 6; i++) writeFileSync(join(h.project, `src${i}.txt`), sourceFile(i, 600));
    for (let i = 0; i < 5; i++) await h.run(`read src${i}.txt`);
    // The checkpoint taken before the first model call of the third prompt.
    const target = h.of("checkpoint.saved").find((c) => c.label.includes("src2"))!;
    const rewound = new Promise<void>((resolve) => h.wired.session.subscribe((e) => e.type === "rewound" && resolve()));
    h.wired.session.submit({ type: "rewind", checkpointId: target.checkpointId, mode: "conversation" });
    await rewound;
    expect(h.wired.session.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["read src0.txt", "read src1.txt"]);
    h.provider.push(...readTurn(5));
    await h.run("read src5.txt");
    const live = h.wired.session.messages;
    h.wired.recorder!.close();
    const loaded = loadSession(sessionFileOf(h));
    expect(loaded.warnings).toEqual([]);
    expect(JSON.stringify(loaded.history)).toBe(JSON.stringify(live));
    const recs = readFileSync(sessionFileOf(h), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string; reason?: string; parts?: Array<{ keep?: [string, string] }> });
    const rewind = recs.find((r) => r.type === "history" && r.reason === "rewind")!;
    // The unchanged start is named, not copied.
    expect(rewind.parts![0]!.keep?.[0]).toBe("e1");
  }, 60_000);
});
