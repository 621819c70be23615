// Session files on disk: permissions, round trip, torn and corrupted lines, versions, secret redaction.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSession, titleOf } from "../../src/store/session-file.ts";
import { SessionStore } from "../../src/store/session-store.ts";
import { createRedactor, REDACTED } from "../../src/store/redact.ts";

let root: string;
let store: SessionStore;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "chatcli-sessfile-"));
  store = new SessionStore({ home: join(root, "home"), env: {} });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const meta = (id: string) => ({ type: "meta" as const, id, title: "t", cwd: "/w", projectRoot: "/w", provider: "P", model: "m", createdAt: 5 });

function writeSample(id: string): string {
  const w = store.writer(id);
  w.append(meta(id));
  w.append({ type: "message", message: { role: "user", content: "one" } });
  w.append({ type: "message", message: { role: "assistant", content: "two" } });
  w.close();
  return w.path;
}

describe("session file", () => {
  test("is created 0600 in a 0700 directory, even under a permissive umask", () => {
    const old = process.umask(0o000);
    try {
      const file = writeSample("s1");
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(store.dir).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(old);
    }
  });

  test("round trip: meta, messages and replace records rebuild the history", () => {
    const w = store.writer("s2");
    w.append(meta("s2"));
    w.append({ type: "message", message: { role: "user", content: "a" } });
    w.append({ type: "message", message: { role: "assistant", content: "b" } });
    w.append({ type: "replace", reason: "compaction", messages: [{ role: "user", content: "summary", meta: { kind: "summary" } }] });
    w.append({ type: "message", message: { role: "user", content: "c" } });
    w.append({ type: "model_switch", provider: "Q", model: "m2" });
    w.close();
    const s = loadSession(w.path);
    expect(s.warnings).toEqual([]);
    expect(s.meta.id).toBe("s2");
    expect(s.history.map((m) => m.content)).toEqual(["summary", "c"]);
    expect(s.lastModel).toEqual({ provider: "Q", model: "m2" });
    expect(s.events.map((e) => e.type)).toEqual(["model_switch"]);
  });

  test("a torn last line is skipped with a warning, and appending after it stays readable", () => {
    const file = writeSample("s3");
    appendFileSync(file, '{"v":1,"ts":1,"type":"message","message":{"role":"user","con');
    const s = loadSession(file);
    expect(s.history.map((m) => m.content)).toEqual(["one", "two"]);
    expect(s.warnings).toHaveLength(1);
    expect(s.warnings[0]).toContain("torn last line");
    // Resuming: the writer cuts the torn fragment off, so the new record is not glued onto it and later loads
    // do not warn about it forever.
    const w = store.writer("s3");
    w.append({ type: "message", message: { role: "user", content: "three" } });
    w.close();
    expect(readFileSync(file, "utf8")).not.toContain('"con\n');
    const again = loadSession(file);
    expect(again.history.map((m) => m.content)).toEqual(["one", "two", "three"]);
    expect(again.warnings).toEqual([]);
  });

  test("a corrupted middle line and an invalid record are skipped, never fatal", () => {
    const file = writeSample("s4");
    const lines = readFileSync(file, "utf8").split("\n");
    lines.splice(2, 0, "\u0000\u0000garbage{{", JSON.stringify({ v: 1, ts: 1, type: "message", message: { role: "wizard", content: 1 } }));
    writeFileSync(file, lines.join("\n"));
    const s = loadSession(file);
    expect(s.history.map((m) => m.content)).toEqual(["one", "two"]);
    expect(s.warnings.map((w) => w.replace(/^[^:]+: /, ""))).toEqual(["line 3 is corrupted and was skipped", "line 4 is not a valid session record and was skipped"]);
  });

  test("a file with hundreds of damaged lines gives a few named warnings and one count, not one warning per line", () => {
    const file = writeSample("s5");
    const lines = readFileSync(file, "utf8").split("\n");
    const bad = Array.from({ length: 300 }, (_, i) => (i % 2 ? "garbage{{" : JSON.stringify({ v: 1, ts: 1, type: "view", event: { type: "tool.completed" } })));
    lines.splice(2, 0, ...bad);
    writeFileSync(file, lines.join("\n"));
    const s = loadSession(file);
    expect(s.history.map((m) => m.content)).toEqual(["one", "two"]);
    const w = s.warnings.map((x) => x.replace(/^[^:]+: /, ""));
    expect(w).toEqual([
      "line 3 is not a valid session record and was skipped",
      "line 4 is corrupted and was skipped",
      "line 5 is not a valid session record and was skipped",
      "297 more damaged line(s) were skipped (lines 6, 7, 8, 9, 10, …)",
    ]);
  });

  test("records of a newer format version are skipped with one warning; a missing meta falls back to defaults", () => {
    const file = join(store.dir, "nometa.jsonl");
    writeSample("tmp");
    writeFileSync(
      file,
      [JSON.stringify({ v: 1, ts: 1, type: "message", message: { role: "user", content: "hello   there\nfriend" } }), JSON.stringify({ v: 99, ts: 1, type: "hologram" }), ""].join("\n"),
    );
    const s = loadSession(file);
    expect(s.meta.id).toBe("nometa");
    expect(s.meta.title).toBe("hello there friend");
    expect(s.warnings.some((w) => w.includes("newer chatcli"))).toBe(true);
    expect(s.history).toHaveLength(1);
  });

  test("API keys never reach the file: env values named like keys, and known key shapes", () => {
    const secret = 'abc"DEF\\ghi-123456';
    const s2 = new SessionStore({ home: join(root, "home2"), env: { MY_API_KEY: secret, GITHUB_TOKEN: "tok_0123456789", SHORT_TOKEN: "1234", PATH: "/usr/bin:/bin" } });
    const w = s2.writer("k");
    w.append(meta("k"));
    const leaked = `key ${secret} and tok_0123456789 and sk-ant-api03-${"a".repeat(30)} and AIza${"B".repeat(35)} and ghp_${"c".repeat(36)}; short 1234; path /usr/bin:/bin`;
    w.append({ type: "message", message: { role: "tool", toolCallId: "1", name: "exec", content: leaked } });
    w.close();
    const raw = readFileSync(w.path, "utf8");
    for (const bad of ["DEF\\\\ghi", "tok_0123456789", "sk-ant-api03", "AIzaBBB", "ghp_ccc"]) expect(raw).not.toContain(bad);
    const content = loadSession(w.path).history[0]!.content;
    expect(content.split(REDACTED)).toHaveLength(6);
    expect(content).toContain("short 1234; path /usr/bin:/bin");
    expect(createRedactor({})("sk-short")).toBe("sk-short");
  });

  test("titles are one line and bounded", () => {
    expect(titleOf("  fix\n\tthe   bug  ")).toBe("fix the bug");
    const long = titleOf("é".repeat(200));
    expect([...long]).toHaveLength(80);
    expect(long.endsWith("…")).toBe(true);
  });
});
