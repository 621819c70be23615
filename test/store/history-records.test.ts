// The recorder's history records: a replaced history (compaction, rewind, clear) is written as the runs of
// entries it keeps plus what is new, never as a copy; old files (full `replace` records, no entry ids) still
// load and can be continued; fsyncs are per turn / per burst, counted through the store's file calls.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as nodeFs from "node:fs";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent } from "../../src/protocol/events.ts";
import type { Message } from "../../src/protocol/message.ts";
import { loadSession, type SessionFs } from "../../src/store/session-file.ts";
import { SessionRecorder } from "../../src/store/session-recorder.ts";
import { SessionStore } from "../../src/store/session-store.ts";
import { transcriptEvents } from "../../src/store/session-replay.ts";

let root: string;
let fsyncs = 0;
const fs: SessionFs = {
  openSync: (path, flags, mode) => nodeFs.openSync(path, flags, mode),
  writeSync: (fd, buf, offset, length) => nodeFs.writeSync(fd, buf, offset, length),
  readSync: (fd, buf, offset, length, position) => nodeFs.readSync(fd, buf, offset, length, position),
  fsyncSync: (fd) => {
    fsyncs++;
    nodeFs.fsyncSync(fd);
  },
  fstatSync: (fd) => nodeFs.fstatSync(fd),
  ftruncateSync: (fd, len) => nodeFs.ftruncateSync(fd, len),
  closeSync: (fd) => nodeFs.closeSync(fd),
};
let store: SessionStore;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "chatcli-histrec-"));
  store = new SessionStore({ home: root, env: {}, fs });
  fsyncs = 0;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const meta = { cwd: "/w", projectRoot: "/w", provider: "P", model: "m" };
const big = (tag: string) => `${tag} ${"x".repeat(5_000)}`;

function records(file: string): Array<Record<string, unknown> & { type: string }> {
  return readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown> & { type: string });
}

function turn(i: number): Message[] {
  return [
    { role: "user", content: `prompt ${i}` },
    { role: "assistant", content: "", toolCalls: [{ id: `c${i}`, name: "read", arguments: "{}" }] },
    { role: "tool", toolCallId: `c${i}`, name: "read", content: big(`result ${i}`) },
    { role: "assistant", content: `answer ${i}` },
  ];
}

/** A recorder fed like the Session feeds it: every history change, and the turn events. */
function recorded(id = "s1") {
  const rec = new SessionRecorder({ store, id, meta });
  let history: Message[] = [];
  return {
    rec,
    get history() {
      return history;
    },
    append(...ms: Message[]) {
      history = [...history, ...ms];
      rec.onHistoryChange({ type: "append", messages: ms });
    },
    replace(ms: Message[], reason: string) {
      history = ms;
      rec.onHistoryChange({ type: "replace", messages: ms, reason });
      rec.onEvent({ type: "history.replaced", messages: ms });
    },
    event(e: AgentEvent) {
      rec.onEvent(e);
    },
  };
}

describe("history records", () => {
  test("a compaction is its summary plus a kept range naming the first kept entry, not a copy", () => {
    const r = recorded();
    for (let i = 0; i < 5; i++) r.append(...turn(i));
    const summary: Message = { role: "user", content: "[summary of turns 0-3]", meta: { kind: "summary" } };
    const kept = r.history.slice(16);
    r.replace([summary, ...kept], "compaction");
    r.append(...turn(5));
    r.rec.close();
    const recs = records(r.rec.file);
    const h = recs.find((x) => x.type === "history")!;
    expect(h.parts).toEqual([{ id: "e21", message: summary }, { keep: ["e17", "e20"] }]);
    expect(JSON.stringify(h).length).toBeLessThan(400);
    const s = loadSession(r.rec.file);
    expect(s.warnings).toEqual([]);
    expect(s.history).toEqual(r.history);
    expect(s.entryIds).toEqual(["e21", "e17", "e18", "e19", "e20", "e22", "e23", "e24", "e25"]);
    // The transcript's redraw after the compaction gets the compacted history.
    const redraw = s.viewEvents.find((e) => e.type === "history.replaced");
    expect(redraw).toEqual({ type: "history.replaced", messages: [summary, ...kept] });
  });

  test("a rewind to copies of earlier messages (a checkpoint's clone) keeps a range by content; clear keeps nothing", () => {
    const r = recorded();
    for (let i = 0; i < 3; i++) r.append(...turn(i));
    r.replace(structuredClone(r.history.slice(0, 4)), "rewind");
    r.append(...turn(9));
    let s = loadSession(r.rec.file);
    expect(s.history).toEqual(r.history);
    expect(records(r.rec.file).find((x) => x.type === "history")!.parts).toEqual([{ keep: ["e1", "e4"] }]);
    r.replace([], "clear");
    r.append({ role: "user", content: "fresh" });
    r.rec.close();
    s = loadSession(r.rec.file);
    expect(s.history).toEqual([{ role: "user", content: "fresh" }]);
    expect(readFileSync(r.rec.file, "utf8").length).toBeLessThan(5 * 5_300);
  });

  test("resuming: the recorder goes on with the loaded ids, and a later rebuild names them", () => {
    const r = recorded("s2");
    for (let i = 0; i < 2; i++) r.append(...turn(i));
    r.rec.close();
    const loaded = loadSession(store.fileFor("s2"));
    const rec = new SessionRecorder({ store, id: "s2", meta, existing: true, entries: loaded });
    const more = turn(2);
    rec.onHistoryChange({ type: "append", messages: more });
    const next = [...loaded.history.slice(4), ...more];
    rec.onHistoryChange({ type: "replace", messages: next, reason: "compaction" });
    rec.close();
    const recs = records(store.fileFor("s2"));
    expect(recs.filter((x) => x.type === "message").map((x) => x.id)).toEqual(["e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9", "e10", "e11", "e12"]);
    expect(recs.find((x) => x.type === "history")!.parts).toEqual([{ keep: ["e5", "e12"] }]);
    expect(loadSession(store.fileFor("s2")).history).toEqual(next);
  });

  test("a kept range naming a missing entry (a damaged line) is skipped with a warning, never a crash", () => {
    const r = recorded("s3");
    r.append(...turn(0));
    r.replace(r.history.slice(2), "compaction");
    r.rec.close();
    const file = store.fileFor("s3");
    const lines = readFileSync(file, "utf8").split("\n");
    const i = lines.findIndex((l) => l.includes('"id":"e3"'));
    lines[i] = "{ damaged";
    writeFileSync(file, lines.join("\n"));
    const s = loadSession(file);
    expect(s.history).toEqual([]);
    expect(s.warnings.some((w) => w.includes("kept range"))).toBe(true);
  });
});

describe("files written before entry ids", () => {
  test("full `replace` records still load, and a resumed session's rebuild names their entries", () => {
    const file = store.fileFor("old");
    const m = (role: "user" | "assistant", content: string) => ({ role, content });
    const lines = [
      { v: 1, ts: 1, type: "meta", id: "old", title: "t", cwd: "/w", projectRoot: "/w", provider: "P", model: "m", createdAt: 1 },
      { v: 1, ts: 2, type: "view", event: { type: "turn.started", turnId: "turn_1", input: "a" } },
      { v: 1, ts: 2, type: "message", message: m("user", "a") },
      { v: 1, ts: 3, type: "message", message: m("assistant", "b") },
      { v: 1, ts: 4, type: "replace", reason: "pipeline", messages: [m("user", "a"), m("assistant", "b (cut)")] },
      { v: 1, ts: 5, type: "message", message: m("user", "c") },
      { v: 1, ts: 6, type: "replace", reason: "compaction", messages: [m("user", "summary"), m("user", "c")] },
      { v: 1, ts: 6, type: "view", event: { type: "history.replaced", messages: [] } },
      { v: 1, ts: 7, type: "message", message: m("assistant", "d") },
    ];
    nodeFs.mkdirSync(store.dir, { recursive: true });
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const s = loadSession(file);
    expect(s.warnings).toEqual([]);
    expect(s.history.map((x) => x.content)).toEqual(["summary", "c", "d"]);
    expect(s.entryIds).toEqual(["#6", "#7", "#8"]);
    expect(transcriptEvents(s).find((e) => e.type === "history.replaced")).toEqual({ type: "history.replaced", messages: [m("user", "summary"), m("user", "c")] });
    // Continue it: new entries get `e` ids, a rewind names the old entries by their ordinal ids.
    const rec = new SessionRecorder({ store, id: "old", meta, existing: true, entries: s });
    rec.onHistoryChange({ type: "append", messages: [m("user", "e")] });
    rec.onHistoryChange({ type: "replace", messages: s.history.slice(0, 2), reason: "rewind" });
    rec.close();
    expect(records(file).at(-1)!.parts).toEqual([{ keep: ["#6", "#7"] }]);
    expect(loadSession(file).history.map((x) => x.content)).toEqual(["summary", "c"]);
  });
});

describe("fsync", () => {
  test("once per turn however many records it wrote; a burst outside a turn is one more; close syncs the rest", async () => {
    const r = recorded("s4");
    for (let i = 0; i < 3; i++) {
      r.event({ type: "turn.started", turnId: `t${i}`, input: `prompt ${i}` });
      r.append(...turn(i));
      r.event({ type: "tool.started", callId: `c${i}`, name: "read", args: {}, title: "read", batchId: "b" });
      r.event({ type: "tool.completed", callId: `c${i}`, name: "read", isError: false, result: "ok", durationMs: 1, batchId: "b" });
      expect(fsyncs).toBe(i);
      r.event({ type: "turn.completed", turnId: `t${i}`, stopReason: "stop", usage: ZERO, totalUsage: ZERO, contextTokens: 0, contextWindow: 0 });
      expect(fsyncs).toBe(i + 1);
    }
    // /compact outside a turn: history record + redraw + report, one fsync at the end of the burst.
    r.replace(r.history.slice(4), "compaction");
    r.event({ type: "compaction", level: 2, messagesBefore: 12, messagesAfter: 8, tokensBefore: 9, tokensAfter: 5, summary: "s" });
    expect(fsyncs).toBe(3);
    await Promise.resolve();
    expect(fsyncs).toBe(4);
    r.event({ type: "model.changed", provider: "Q", model: "m2" });
    r.rec.close();
    expect(fsyncs).toBe(5);
    expect(loadSession(r.rec.file).history).toEqual(r.history);
  });
});

const ZERO = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };

describe("a session's directory", () => {
  test("a fork copies the saved outputs into its own directory and keeps the entry ids; delete removes the directory", () => {
    const r = recorded("parent");
    r.append(...turn(0));
    r.rec.close();
    const saved = join(store.toolResultsDirFor("parent"), "budget_c0_x.txt");
    nodeFs.mkdirSync(store.toolResultsDirFor("parent"), { recursive: true });
    writeFileSync(saved, "full output");
    const id = store.fork("parent", { title: "t", cwd: "/w", projectRoot: "/w", provider: "P", model: "m" });
    expect(readFileSync(join(store.toolResultsDirFor(id), "budget_c0_x.txt"), "utf8")).toBe("full output");
    const forked = loadSession(store.fileFor(id));
    expect(forked.entryIds).toEqual(["e1", "e2", "e3", "e4"]);
    expect(forked.meta.forkedFrom).toBe("parent");
    expect(store.delete(id)).toEqual({ id });
    expect(nodeFs.existsSync(store.dataDirFor(id))).toBe(false);
    expect(nodeFs.existsSync(saved)).toBe(true);
  });
});

describe("view records", () => {
  test("a streamed answer is recorded once, as one delta holding its text (linear in the answer), and replays with it", () => {
    const r = recorded("s5");
    r.event({ type: "turn.started", turnId: "t", input: "q" });
    r.append({ role: "user", content: "q" });
    r.event({ type: "message.delta", messageId: "m1", thinking: "hm" });
    r.event({ type: "message.delta", messageId: "m1", text: "Hel" });
    r.event({ type: "message.delta", messageId: "m1", text: "lo there" });
    const answer: Message = { role: "assistant", content: "Hello there" };
    r.event({ type: "message.completed", messageId: "m1", message: answer });
    r.append(answer);
    r.rec.close();
    const deltas = records(r.rec.file).filter((x) => x.type === "view" && (x.event as { type: string }).type === "message.delta");
    expect(deltas.map((d) => d.event)).toEqual([{ type: "message.delta", messageId: "m1", text: "Hello there", thinking: "hm" }]);
    const replayed = loadSession(r.rec.file).viewEvents.filter((e) => e.type === "message.delta");
    expect(replayed).toEqual([{ type: "message.delta", messageId: "m1", text: "Hello there", thinking: "hm" }]);
  });

  test("files written before event schema 2 (the coalesced delta's text in `partial`) still replay their answers", () => {
    const file = join(root, "sessions", "old2.jsonl");
    nodeFs.mkdirSync(join(root, "sessions"), { recursive: true });
    const lines = [
      { v: 1, ts: 1, type: "meta", id: "old2", title: "t", cwd: "/w", projectRoot: "/w", provider: "P", model: "m", createdAt: 1 },
      { v: 1, ts: 2, type: "view", event: { type: "turn.started", turnId: "turn_1", input: "a" } },
      { v: 1, ts: 2, type: "message", message: { role: "user", content: "a" } },
      { v: 1, ts: 3, type: "view", event: { type: "message.delta", messageId: "m1", partial: "written by 1" } },
      { v: 1, ts: 3, type: "view", event: { type: "message.delta", messageId: "m2", partial: "oldest form", text: "oldest form" } },
      { v: 1, ts: 3, type: "view", event: { type: "message.delta", messageId: "m3", partial: "", thinking: "only thought" } },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n"));
    const loaded = loadSession(file);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.viewEvents.filter((e) => e.type === "message.delta")).toEqual([
      { type: "message.delta", messageId: "m1", text: "written by 1" },
      { type: "message.delta", messageId: "m2", text: "oldest form" },
      { type: "message.delta", messageId: "m3", thinking: "only thought" },
    ]);
  });

});
