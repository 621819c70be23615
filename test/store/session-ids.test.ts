import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionStore } from "../../src/store/session-store.ts";

let root: string;
let home: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "chatcli-session-ids-"));
  home = join(root, "a", "b", ".chatcli");
  mkdirSync(join(home, "sessions"), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const meta = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ v: 1, ts: 1, type: "meta", id, title: "t", cwd: "/p", projectRoot: "/p", provider: "X", model: "m", createdAt: 1, ...extra });
const msg = JSON.stringify({ v: 1, ts: 2, type: "message", message: { role: "user", content: "hi" } });

describe("session ids read from session files", () => {
  test("a meta.id of ../../x is replaced by the file's own name, with a warning naming the file; nothing is written or chmodded outside", () => {
    writeFileSync(join(home, "sessions", "evil.jsonl"), `${meta("../../x", { forkedFrom: "../y" })}\n${msg}\n`);
    chmodSync(join(root, "a"), 0o755);
    const store = new SessionStore({ home, env: {} });
    const loaded = store.load("evil");
    expect(loaded?.meta.id).toBe("evil");
    expect(loaded?.meta.forkedFrom).toBeUndefined();
    expect(loaded?.warnings.join("\n")).toContain("evil.jsonl");
    // What --resume does next: keep appending to the session by its id.
    const w = store.writer(loaded!.meta.id);
    w.append({ type: "message", message: { role: "user", content: "again" } });
    w.close();
    expect(readdirSync(join(home, "sessions")).sort()).toEqual(["evil.jsonl"]);
    expect(existsSync(join(root, "a", "x.jsonl"))).toBe(false);
    expect(statSync(join(root, "a")).mode & 0o777).toBe(0o755);
  });

  test("a file whose own name is not an id either is refused (not listed, not loadable)", () => {
    writeFileSync(join(home, "sessions", "bad name.jsonl"), `${meta("../../x")}\n${msg}\n`);
    const store = new SessionStore({ home, env: {} });
    expect(store.list()).toEqual([]);
    expect(store.load("bad name")).toBeUndefined();
  });

  test("the store never builds a path from an unsafe id", () => {
    const store = new SessionStore({ home, env: {} });
    for (const id of ["../../x", "a/b", "", "x.y", "..", "a\u0000b"]) {
      expect(() => store.fileFor(id)).toThrow();
      expect(() => store.dataDirFor(id)).toThrow();
    }
    expect(store.fileFor("20260101-120000-abc123")).toBe(join(home, "sessions", "20260101-120000-abc123.jsonl"));
  });
});
