// The store over real temp dirs: listing, names, references, delete, fork, ChatCLI v2 import; and the
// /session and /context slash commands driving a real Session.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSession } from "../../src/store/session-file.ts";
import { SessionStore } from "../../src/store/session-store.ts";
import { createSlashCommands } from "../../src/cli/slash-commands.ts";
import { harness, type Harness } from "../support/agent-harness.ts";

let root: string;
let store: SessionStore;
let clock = 1_700_000_000_000;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "chatcli-store-"));
  store = new SessionStore({ home: join(root, "home"), env: {}, now: () => clock++ });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const base = { cwd: "/w", provider: "P", model: "m" };

describe("SessionStore", () => {
  test("latestForProject gives what list().find() gives (names included), with other projects, no-meta, corrupt and same-mtime files", () => {
    const { utimesSync } = require("node:fs") as typeof import("node:fs");
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(store.createFrom({ ...base, title: `s${i}`, projectRoot: i % 3 === 0 ? "/p1" : `/other${i}` }, [{ role: "user", content: `m${i}` }]));
    // A file whose first line is no meta record (its meta comes later) and a file that is not JSON at all.
    writeFileSync(join(store.dir, "zz-late-meta.jsonl"), [JSON.stringify({ v: 1, ts: 1, type: "message", message: { role: "user", content: "late" } }), JSON.stringify({ v: 1, ts: 1, type: "meta", id: "zz-late-meta", title: "late", cwd: "/w", projectRoot: "/p2", provider: "P", model: "m", createdAt: 1 })].join("\n") + "\n");
    writeFileSync(join(store.dir, "zz-garbage.jsonl"), "\u0000not json\n");
    const t = new Date(1_800_000_000_000);
    for (const id of ids) utimesSync(store.fileFor(id), t, t); // every file the same mtime: ties broken by id
    const newestP1 = store.list().find((s) => s.projectRoot === "/p1")!.id;
    expect(store.saveName("favourite", newestP1)).toBeUndefined();
    for (const p of ["/p1", "/p2", "/other4", "/nowhere"]) expect(store.latestForProject(p)).toEqual(store.list().find((s) => s.projectRoot === p));
    expect(store.latestForProject("/p1")?.names).toEqual(["favourite"]);
    expect(store.latestForProject("/p2")?.title).toBe("late");
  });

  test("list, names, references by name / id / unique prefix, latest per project, delete", async () => {
    const a = store.createFrom({ ...base, title: "first", projectRoot: "/p1" }, [{ role: "user", content: "hi" }, { role: "assistant", content: "yo" }]);
    await Bun.sleep(15);
    const b = store.createFrom({ ...base, title: "second", projectRoot: "/p2" }, [{ role: "user", content: "x" }]);
    expect(store.list().map((s) => [s.id, s.title, s.messages])).toEqual([
      [b, "second", 1],
      [a, "first", 2],
    ]);
    expect(store.saveName("my-work", a)).toBeUndefined();
    expect(store.saveName("../evil", a)).toContain("Invalid session name");
    expect(statSync(join(store.dir, "names.json")).mode & 0o777).toBe(0o600);
    expect(store.resolve("my-work")?.id).toBe(a);
    expect(store.resolve(b)?.id).toBe(b);
    expect(store.list().find((s) => s.id === a)?.names).toEqual(["my-work"]);
    expect(store.latestForProject("/p1")?.id).toBe(a);
    expect(store.latestForProject("/nowhere")).toBeUndefined();
    expect(store.resolve("zzz")).toBeUndefined();
    expect(store.delete("my-work")).toEqual({ id: a });
    expect(existsSync(store.fileFor(a))).toBe(false);
    expect(store.names()).toEqual({});
    expect(store.delete("my-work")).toContain("No session matches");
  });

  test("imports a ChatCLI v2 session file (tool calls with object arguments, merged legacy histories)", () => {
    const v2 = {
      version: 2,
      title: "Fix the build",
      chat_history: [
        { role: "system", content: "sys" },
        { role: "user", content: "the build fails" },
        { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", name: "exec", arguments: { cmd: "make" } }] },
        { role: "tool", content: "error: x", tool_call_id: "c1", is_error: true, error_code: "exit_1" },
        { role: "assistant", content: "Fixed.", meta: { is_summary: true } },
        { role: "bogus" },
      ],
      agent_history: [{ role: "user", content: "legacy agent msg" }],
    };
    const file = join(root, "chatcli.json");
    writeFileSync(file, JSON.stringify(v2, null, 2));
    const r = store.importChatcli(file, { cwd: "/w", projectRoot: "/p" });
    if (typeof r === "string") throw new Error(r);
    expect(r).toMatchObject({ messages: 5, skipped: 1 });
    const s = loadSession(store.fileFor(r.id));
    expect(s.meta).toMatchObject({ title: "Fix the build", projectRoot: "/p", importedFrom: file });
    expect(s.history[2]).toEqual({ role: "assistant", content: "", toolCalls: [{ id: "c1", name: "exec", arguments: '{"cmd":"make"}' }] });
    expect(s.history[3]).toEqual({ role: "tool", toolCallId: "c1", name: "exec", content: "error: x", isError: true, errorCode: "exit_1" });
    expect(s.history[4]!.meta).toEqual({ kind: "summary" });
    expect(s.history.at(-1)!.content).toBe("legacy agent msg");
    writeFileSync(file, JSON.stringify([{ role: "user", content: "legacy array" }]));
    const legacy = store.importChatcli(file, { cwd: "/w", projectRoot: "/p" });
    expect(typeof legacy === "string" ? legacy : legacy.messages).toBe(1);
    writeFileSync(file, '{"version":2,');
    expect(store.importChatcli(file, { cwd: "/w", projectRoot: "/p" })).toContain("not a JSON file");
    writeFileSync(file, '{"chat": []}');
    expect(store.importChatcli(file, { cwd: "/w", projectRoot: "/p" })).toContain("not a ChatCLI session file");
  });
});

describe("/session and /context", () => {
  let h: Harness | undefined;
  afterEach(() => {
    h?.cleanup();
    h = undefined;
  });

  test("save, list, new, load, fork and delete swap histories and files", async () => {
    h = harness({ replies: [{ text: "answer A" }, { text: "answer B" }, { text: "answer A2" }] });
    const w = h.wired;
    const slash = createSlashCommands({ session: w.session, store: w.store, recorder: w.recorder!, contexts: w.contexts, projectRoot: h.project });
    const run = (args: string) => slash.handle("session", args)!;
    expect(slash.handle("model", "")).toBeUndefined();
    expect(await run("save early")).toContain("Nothing to save yet");
    await h.run("topic A");
    const idA = w.recorder!.id;
    expect(await run("save alpha")).toContain('saved as "alpha"');
    expect(await run("new")).toContain(`${idA} stays saved`);
    expect(w.session.messages).toEqual([]);
    await h.run("topic B");
    const idB = w.recorder!.id;
    expect(idB).not.toBe(idA);
    expect(await run("list")).toContain("alpha");
    expect(await run("delete " + idB)).toContain("current session");
    const events = h.events.length;
    expect(await run("load alpha")).toContain(`Loaded session ${idA}`);
    expect(w.session.messages.map((m) => m.content)).toEqual(["topic A", "answer A"]);
    // The transcript was redrawn from the recorded events: a clear, then topic A's turn.
    const redraw = h.events.slice(events);
    expect(redraw[0]).toEqual({ type: "history.replaced", messages: [] });
    expect(redraw.some((e) => e.type === "turn.started" && e.input === "topic A")).toBe(true);
    // ...and none of that was written again.
    expect(loadSession(w.store.fileFor(idA)).history).toHaveLength(2);
    await h.run("more A");
    expect(loadSession(w.store.fileFor(idA)).history.map((m) => m.content)).toEqual(["topic A", "answer A", "more A", "answer A2"]);
    expect(loadSession(w.store.fileFor(idB)).history.map((m) => m.content)).toEqual(["topic B", "answer B"]);
    expect(await run("fork")).toContain(`${idA} stays as it was`);
    const idF = w.recorder!.id;
    const forked = loadSession(w.store.fileFor(idF));
    expect(forked.meta.forkedFrom).toBe(idA);
    expect(forked.history).toHaveLength(4);
    expect(readFileSync(w.store.fileFor(idF), "utf8").match(/"type":"meta"/g)).toHaveLength(1);
    expect(await run("delete " + idB)).toBe(`Deleted session ${idB}.`);
    expect(await run("load nope")).toContain("No session matches");
    expect(await run("bogus")).toContain("Unknown /session subcommand");
  });

  test("contexts: create, attach (system prompt parts in attach order, cached by mtime), detach, list", async () => {
    h = harness({ replies: [{ text: "one" }, { text: "two" }, { text: "three" }] });
    writeFileSync(join(h.project, "api.md"), "API DOC\n");
    writeFileSync(join(h.project, "db.md"), "DB DOC\n");
    const w = h.wired;
    const slash = createSlashCommands({ session: w.session, store: w.store, recorder: w.recorder!, contexts: w.contexts, projectRoot: h.project });
    const ctx = (args: string) => slash.handle("context", args)!;
    expect(await ctx("create api api.md")).toContain('Context "api" saved');
    expect(await ctx("create db db.md")).toContain('Context "db" saved');
    expect(await ctx("create bad /etc/passwd")).toContain("not saved");
    expect(await ctx("create outside ../x")).toContain("not saved");
    expect(await ctx("attach nope")).toContain('No context named "nope"');
    await ctx("attach db");
    await ctx("attach api");
    await h.run("q1");
    const parts = h.provider.requests[0]!.system;
    const texts = parts.map((p) => p.text);
    const iDb = texts.findIndex((t) => t.includes("DB DOC"));
    const iApi = texts.findIndex((t) => t.includes("API DOC"));
    expect(iDb).toBeGreaterThan(0);
    expect(iApi).toBe(iDb + 1);
    expect(parts[iDb]!.cacheable).toBe(true);
    const readsAfterFirst = w.contexts.reads;
    await h.run("q2");
    expect(w.contexts.reads).toBe(readsAfterFirst);
    expect(h.provider.requests[1]!.system.map((p) => p.text)).toEqual(texts);
    expect(await ctx("list")).toBe("● api: api.md\n● db: db.md");
    expect(await ctx("detach db")).toBe("Detached: db.");
    expect(await ctx("detach")).toBe("Detached: api.");
    await h.run("q3");
    expect(h.provider.requests[2]!.system.map((p) => p.text).join("\n")).not.toContain("DOC");
    expect(JSON.parse(readFileSync(join(h.home, ".chatcli", "contexts", "api.json"), "utf8")).paths).toEqual(["api.md"]);
  });
});
