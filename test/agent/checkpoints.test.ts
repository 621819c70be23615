import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent } from "../../src/protocol/events.ts";
import type { Message } from "../../src/protocol/message.ts";
import { CheckpointStore, checkpointLabel, cutLabel, type CheckpointStoreOptions } from "../../src/agent/checkpoints.ts";

let root: string;
let project: string;
let dir: string;
let events: AgentEvent[];
let clock: number;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "checkpoints-"));
  project = join(root, "project");
  dir = join(root, "home", "snapshots", "s1");
  mkdirSync(project, { recursive: true });
  events = [];
  clock = 1_000;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function store(extra: Partial<CheckpointStoreOptions> = {}): CheckpointStore {
  return new CheckpointStore({ sessionId: "s1", dir, projectRoot: project, now: () => clock++, publish: (e) => events.push(e), ...extra });
}

const user = (content: string): Message => ({ role: "user", content });
const assistant = (content: string): Message => ({ role: "assistant", content });
const file = (name: string) => join(project, name);
const blobCount = () => (existsSync(join(dir, "blobs")) ? readdirSync(join(dir, "blobs")).length : 0);

/** Simulates the write tool: the hook, then the change. */
function agentWrite(s: CheckpointStore, name: string, content: string): void {
  s.beforeFileChange(file(name));
  writeFileSync(file(name), content);
}

describe("checkpoints", () => {
  test("at most 20 are kept, the oldest dropped first, with their history copies", () => {
    const s = store();
    const h: Message[] = [];
    for (let i = 1; i <= 25; i++) {
      h.push(user(`q${i}`));
      s.save(h);
      h.push(assistant(`a${i}`));
    }
    expect(s.count).toBe(20);
    const list = s.list();
    expect(list[0]!.label).toBe("q25");
    expect(list[19]!.label).toBe("q6");
    expect(readdirSync(join(dir, "history")).length).toBe(20);
    expect(events.filter((e) => e.type === "checkpoint.saved").length).toBe(25);
  });

  test("an identical history is not saved twice", () => {
    const s = store();
    const h = [user("hello")];
    expect(s.save(h)).toBeDefined();
    expect(s.save(h)).toBeUndefined();
    expect(s.count).toBe(1);
  });

  test("labels: last typed user message, one line, ≤ 60 characters cut on grapheme boundaries", () => {
    expect(checkpointLabel([])).toBe("(start)");
    expect(checkpointLabel([user("fix\nthe   bug"), assistant("ok"), { role: "user", content: "<tool_result>…", meta: { kind: "tool_feedback" } }])).toBe("fix the bug");
    const long = "x".repeat(100);
    expect(cutLabel(long)).toBe(`${"x".repeat(59)}…`);
    const accents = "ação".repeat(30);
    const cut = cutLabel(accents);
    expect([...cut].length).toBe(60);
    expect(cut.endsWith("…")).toBe(true);
    expect(accents.startsWith(cut.slice(0, -1))).toBe(true);
    const family = "👨‍👩‍👧";
    const emoji = cutLabel(family.repeat(70));
    expect(emoji).toBe(`${family.repeat(59)}…`);
    const mixed = cutLabel(`${"a".repeat(58)}😀😀😀`);
    expect(mixed).toBe(`${"a".repeat(58)}😀…`);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(mixed)).toBe(false);
    expect(cutLabel("short 😀")).toBe("short 😀");
  });

  test("the history copy is deep: later changes to nested tool calls never leak into it", async () => {
    const s = store();
    const call = { id: "c1", name: "read", arguments: '{"path":"a"}' };
    const h: Message[] = [user("go"), { role: "assistant", content: "", toolCalls: [call] }, { role: "tool", toolCallId: "c1", name: "read", content: "data" }];
    const cp = s.save(h)!;
    call.arguments = '{"path":"MUTATED"}';
    (h[1] as { toolCalls: unknown[] }).toolCalls.push({ id: "c2", name: "x", arguments: "{}" });
    h.push(assistant("later"));
    const r = await s.rewind({ type: "rewind", checkpointId: cp.id, mode: "conversation" }, h);
    if (typeof r === "string") throw new Error(r);
    expect(r.history).toHaveLength(3);
    const a = r.history![1]!;
    expect(a.role === "assistant" && a.toolCalls).toEqual([{ id: "c1", name: "read", arguments: '{"path":"a"}' }]);
    expect(r.prompt).toBe("");
  });

  test("a turn-start checkpoint restores the conversation before the message and puts the message back in the prompt", async () => {
    const s = store();
    const h: Message[] = [user("first"), assistant("one")];
    h.push(user("second question"));
    const cp = s.save(h)!;
    expect(cp.messageCount).toBe(2);
    h.push(assistant("two"));
    const r = await s.rewind({ type: "rewind", checkpointId: cp.id, mode: "conversation" }, h);
    if (typeof r === "string") throw new Error(r);
    expect(r.history).toEqual([user("first"), assistant("one")]);
    expect(r.prompt).toBe("second question");
  });
});

describe("file snapshots", () => {
  test("the same content is stored once; a file is snapshotted once per checkpoint", () => {
    const s = store();
    writeFileSync(file("a.txt"), "same");
    writeFileSync(file("b.txt"), "same");
    s.save([user("q")]);
    agentWrite(s, "a.txt", "A1");
    agentWrite(s, "a.txt", "A2");
    agentWrite(s, "b.txt", "B1");
    s.save([user("q"), assistant("done")]);
    const idx = s.toJSON();
    expect(idx.checkpoints[0]!.before[file("a.txt")]).toEqual(idx.checkpoints[0]!.before[file("b.txt")]);
    // "same" once, plus the after-states A2 and B1 kept for exec restores
    expect(blobCount()).toBe(3);
    expect(s.list()[1]!.files).toBe(2);
  });

  test("restore both: files return to their checkpoint content, created files are deleted only when confirmed", async () => {
    const s = store();
    writeFileSync(file("a.txt"), "original\n");
    const h: Message[] = [user("edit a")];
    const cp = s.save(h)!;
    agentWrite(s, "a.txt", "changed\n");
    mkdirSync(file("sub"));
    agentWrite(s, "sub/new.txt", "new\n");
    h.push(assistant("done"));
    const plan = s.plan(cp.id);
    if (typeof plan === "string") throw new Error(plan);
    expect(plan.change).toEqual([file("a.txt")]);
    expect(plan.created).toEqual([file("sub/new.txt")]);
    expect(plan.conflicts).toEqual([]);

    const r = await s.rewind({ type: "rewind", checkpointId: cp.id, mode: "both" }, h);
    if (typeof r === "string") throw new Error(r);
    expect(readFileSync(file("a.txt"), "utf8")).toBe("original\n");
    expect(existsSync(file("sub/new.txt"))).toBe(true);
    expect(r.prompt).toBe("edit a");
    expect(r.history).toEqual([]);
    await Bun.sleep(5); // the restore notice is published one tick later
    const notice = events.filter((e) => e.type === "notice").at(-1);
    expect(notice && notice.type === "notice" && notice.text).toContain("Kept files created after the checkpoint");

    const r2 = await s.rewind({ type: "rewind", checkpointId: cp.id, mode: "code", deleteCreated: true }, h);
    if (typeof r2 === "string") throw new Error(r2);
    expect(existsSync(file("sub/new.txt"))).toBe(false);
    expect(r2.history).toBeUndefined();
  });

  test("rewinding is undoable through the (before rewind) checkpoint", async () => {
    const s = store();
    writeFileSync(file("a.txt"), "v1");
    const h: Message[] = [user("make v2")];
    const cp = s.save(h)!;
    agentWrite(s, "a.txt", "v2");
    h.push(assistant("done v2"));
    const r = await s.rewind({ type: "rewind", checkpointId: cp.id, mode: "both" }, h);
    if (typeof r === "string") throw new Error(r);
    expect(readFileSync(file("a.txt"), "utf8")).toBe("v1");
    const undo = s.list()[0]!;
    expect(undo.label).toBe("(before rewind) make v2");
    expect(undo.files).toBe(1);
    const back = await s.rewind({ type: "rewind", checkpointId: undo.id, mode: "both" }, r.history!);
    if (typeof back === "string") throw new Error(back);
    expect(readFileSync(file("a.txt"), "utf8")).toBe("v2");
    expect(back.history).toEqual([user("make v2"), assistant("done v2")]);
    expect(back.prompt).toBe("");
  });

  test("a file changed outside chatcli is a conflict: skipped unless forced", async () => {
    const s = store();
    writeFileSync(file("a.txt"), "v1");
    const cp = s.save([user("q")])!;
    agentWrite(s, "a.txt", "v2");
    s.save([user("q"), assistant("x")]);
    writeFileSync(file("a.txt"), "edited by the user");
    const plan = s.plan(cp.id);
    if (typeof plan === "string") throw new Error(plan);
    expect(plan.conflicts).toEqual([{ path: file("a.txt"), action: "change" }]);
    expect(plan.change).toEqual([]);
    await s.rewind({ type: "rewind", checkpointId: cp.id, mode: "code" }, []);
    expect(readFileSync(file("a.txt"), "utf8")).toBe("edited by the user");
    await Bun.sleep(5);
    const n = events.filter((e) => e.type === "notice").at(-1);
    expect(n && n.type === "notice" && n.text).toContain("Skipped (changed outside chatcli)");
    await s.rewind({ type: "rewind", checkpointId: cp.id, mode: "code", force: true }, []);
    expect(readFileSync(file("a.txt"), "utf8")).toBe("v1");
  });

  test("files over the size limit are recorded as not restorable and left alone", async () => {
    const s = store({ maxFileBytes: 100 });
    writeFileSync(file("big.txt"), "b".repeat(500));
    const cp = s.save([user("q")])!;
    agentWrite(s, "big.txt", "small now");
    const plan = s.plan(cp.id);
    if (typeof plan === "string") throw new Error(plan);
    expect(plan.notRestorable).toEqual([{ path: file("big.txt"), reason: "larger than 100 bytes" }]);
    await s.rewind({ type: "rewind", checkpointId: cp.id, mode: "code" }, []);
    expect(readFileSync(file("big.txt"), "utf8")).toBe("small now");
  });

  test("an unwritable store: the checkpoint becomes conversation-only and conversation rewinds still work", async () => {
    writeFileSync(join(root, "not-a-dir"), "x");
    dir = join(root, "not-a-dir", "snapshots");
    const s = store();
    writeFileSync(file("a.txt"), "v1");
    const h: Message[] = [user("q")];
    const cp = s.save(h)!;
    expect(() => agentWrite(s, "a.txt", "v2")).not.toThrow();
    expect(s.list()[0]!.conversationOnly).toBe(true);
    const code = await s.rewind({ type: "rewind", checkpointId: cp.id, mode: "code" }, h);
    expect(typeof code).toBe("string");
    expect(code as string).toContain("conversation-only");
    const conv = await s.rewind({ type: "rewind", checkpointId: cp.id, mode: "conversation" }, [...h, assistant("a")]);
    expect(typeof conv === "string" ? conv : conv.prompt).toBe("q");
  });

  test("exec: changes to files chatcli wrote or copied before the command are restorable, new files are created ones", async () => {
    const s = store();
    writeFileSync(file("never-seen.txt"), "old");
    const cp = s.save([user("q")])!;
    agentWrite(s, "mine.txt", "written by chatcli");
    s.save([user("q"), assistant("step")]);
    const token = await s.aroundExec.before();
    writeFileSync(file("mine.txt"), "changed by sed, longer");
    writeFileSync(file("never-seen.txt"), "new content");
    writeFileSync(file("made-by-exec.txt"), "out");
    await s.aroundExec.after(token);
    const second = s.list()[0]!;
    expect(second.files).toBe(3);
    const plan = s.plan(second.id);
    if (typeof plan === "string") throw new Error(plan);
    expect(plan.change.sort()).toEqual([file("mine.txt"), file("never-seen.txt")]);
    expect(plan.created).toEqual([file("made-by-exec.txt")]);
    expect(plan.notRestorable).toEqual([]);
    await s.rewind({ type: "rewind", checkpointId: second.id, mode: "code", deleteCreated: true }, []);
    expect(readFileSync(file("mine.txt"), "utf8")).toBe("written by chatcli");
    expect(existsSync(file("made-by-exec.txt"))).toBe(false);
    expect(readFileSync(file("never-seen.txt"), "utf8")).toBe("old");
    // the first checkpoint predates mine.txt: restoring it deletes the file (when confirmed)
    const p1 = s.plan(cp.id);
    if (typeof p1 === "string") throw new Error(p1);
    expect(p1.created).toContain(file("mine.txt"));
  });

  test("exec: a file past the pre-exec copy budget is not restorable; copies are stored once and survive a reload", async () => {
    writeFileSync(file("small.txt"), "s".repeat(100));
    writeFileSync(file("big.txt"), "b".repeat(5_000));
    const s = store({ maxExecCacheBytes: 1_000 });
    s.save([user("q")]);
    const t1 = await s.aroundExec.before();
    await s.aroundExec.after(t1); // nothing changed: no file recorded
    expect(s.list()[0]!.files).toBe(0);
    const blobs = blobCount();
    expect(blobs).toBe(1); // small.txt only; big.txt is over the budget
    const t2 = await s.aroundExec.before();
    expect(blobCount()).toBe(blobs); // unchanged files are not copied again
    writeFileSync(file("small.txt"), "changed");
    writeFileSync(file("big.txt"), "changed");
    await s.aroundExec.after(t2);
    const again = CheckpointStore.load({ sessionId: "s1", dir, projectRoot: project });
    const plan = again.plan(again.list()[0]!.id);
    if (typeof plan === "string") throw new Error(plan);
    expect(plan.change).toEqual([file("small.txt")]);
    expect(plan.notRestorable.map((n) => n.path)).toEqual([file("big.txt")]);
    await again.rewind({ type: "rewind", checkpointId: again.list()[0]!.id, mode: "code" }, []);
    expect(readFileSync(file("small.txt"), "utf8")).toBe("s".repeat(100));
    expect(readFileSync(file("big.txt"), "utf8")).toBe("changed");
  });

  test("exec in a git repo: a file clean against HEAD is restored from HEAD; .gitignored files are skipped", async () => {
    const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: project, env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
    if (git("init", "-q").exitCode !== 0) return; // no git here
    writeFileSync(file("tracked.txt"), "from head\n");
    writeFileSync(file(".gitignore"), "build/\n");
    git("add", ".");
    git("commit", "-qm", "init");
    mkdirSync(file("build"));
    const s = store();
    s.save([user("q")]);
    const token = await s.aroundExec.before();
    writeFileSync(file("tracked.txt"), "rewritten by a command\n");
    writeFileSync(file("build/out.js"), "ignored");
    await s.aroundExec.after(token);
    const cp = s.list()[0]!;
    expect(cp.files).toBe(1);
    await s.rewind({ type: "rewind", checkpointId: cp.id, mode: "code" }, []);
    expect(readFileSync(file("tracked.txt"), "utf8")).toBe("from head\n");
  });

  test("saved with the session: a reloaded store lists the same checkpoints and rewinds from disk", async () => {
    const s = store();
    writeFileSync(file("a.txt"), "v1");
    s.save([user("one")]);
    agentWrite(s, "a.txt", "v2");
    s.save([user("one"), assistant("1"), user("two")]);
    const again = CheckpointStore.load({ sessionId: "s1", dir, projectRoot: project });
    expect(again.list()).toEqual(s.list());
    const oldest = again.byNumber(2)!;
    expect(oldest.label).toBe("one");
    const r = await again.rewind({ type: "rewind", checkpointId: oldest.id, mode: "both" }, [user("one"), assistant("1"), user("two"), assistant("2")]);
    if (typeof r === "string") throw new Error(r);
    expect(r.prompt).toBe("one");
    expect(readFileSync(file("a.txt"), "utf8")).toBe("v1");
    expect(CheckpointStore.fromJSON(JSON.parse(JSON.stringify(again.toJSON())), { sessionId: "s1", dir, projectRoot: project }).count).toBe(3);
  });

  test("the store's size cap prunes the oldest checkpoints and their blobs", () => {
    const s = store({ maxStoreBytes: 3_000 });
    for (let i = 0; i < 6; i++) {
      writeFileSync(file("f.txt"), `${i}`.repeat(1_000));
      s.save([user(`q${i}`)]);
      agentWrite(s, "f.txt", `${i}!`.repeat(10));
    }
    s.save([user("last")]);
    expect(s.storeBytes).toBeLessThanOrEqual(3_000);
    expect(s.count).toBeLessThan(7);
    expect(s.list().at(-1)!.label).not.toBe("q0");
    const live = new Set(Object.keys(s.toJSON().blobs));
    expect(readdirSync(join(dir, "blobs")).every((b) => live.has(b))).toBe(true);
  });
});

describe("checkpoint files on disk", () => {
  test("history copies are 0600 in 0700 dirs and never hold an API key from the environment", async () => {
    const { createRedactor } = await import("../../src/store/redact.ts");
    const secret = "sk-live-abcdefghijklmnopqrstuvwxyz123456";
    const s = store({ redact: createRedactor({ OPENAI_API_KEY: secret }) });
    await s.save([user("print env"), { role: "tool", toolCallId: "c1", name: "exec", content: `OPENAI_API_KEY=${secret}\nPATH=/bin` }, user("next")]);
    const histDir = join(dir, "history");
    const files = readdirSync(histDir);
    expect(files.length).toBe(1);
    const text = readFileSync(join(histDir, files[0]!), "utf8");
    expect(text).not.toContain(secret);
    expect(text).toContain("[REDACTED]");
    const { statSync } = await import("node:fs");
    expect(statSync(join(histDir, files[0]!)).mode & 0o777).toBe(0o600);
    expect(statSync(histDir).mode & 0o777).toBe(0o700);
  });
});

describe("the exec scan does not block the event loop (issue 26 #8)", () => {
  test("timers fire while the pre-exec scan and copies run, and the changed file is still restorable", async () => {
    for (let d = 0; d < 20; d++) {
      mkdirSync(file(`d${d}`));
      for (let f = 0; f < 100; f++) writeFileSync(file(`d${d}/f${f}.txt`), `${d}/${f}\n`);
    }
    const s = store();
    s.save([user("q")]);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    let ticksDuringBefore = -1;
    const token = await Promise.resolve(s.aroundExec.before()).then((t) => {
      ticksDuringBefore = ticks;
      return t;
    });
    writeFileSync(file("d3/f7.txt"), "changed by a command\n");
    const ticksBeforeAfter = ticks;
    let ticksDuringAfter = -1;
    await Promise.resolve(s.aroundExec.after(token)).then(() => {
      ticksDuringAfter = ticks - ticksBeforeAfter;
    });
    clearInterval(timer);
    expect(ticksDuringBefore).toBeGreaterThan(0);
    expect(ticksDuringAfter).toBeGreaterThan(0);
    const cp = s.list()[0]!;
    expect(cp.files).toBe(1);
    await s.rewind({ type: "rewind", checkpointId: cp.id, mode: "code" }, []);
    expect(readFileSync(file("d3/f7.txt"), "utf8")).toBe("3/7\n");
  });
});
