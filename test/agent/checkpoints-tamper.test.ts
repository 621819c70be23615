import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent } from "../../src/protocol/events.ts";
import { CheckpointStore, checkpointDir } from "../../src/agent/checkpoints.ts";

let root: string;
let project: string;
let outside: string;
let dir: string;
let events: AgentEvent[];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "checkpoints-tamper-"));
  project = join(root, "project");
  outside = join(root, "outside");
  dir = join(root, "home", "snapshots", "s1");
  mkdirSync(project, { recursive: true });
  mkdirSync(outside, { recursive: true });
  events = [];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const opts = () => ({ sessionId: "s1", dir, projectRoot: project, publish: (e: AgentEvent) => events.push(e) });

describe("a tampered snapshots/<id>/index.json writes and deletes nothing outside the project", () => {
  test("bad hashes, outside targets, a symlinked parent and bad blob names are refused with a warning", async () => {
    // A real store with one checkpoint and one recorded change.
    const s = new CheckpointStore(opts());
    writeFileSync(join(project, "a.txt"), "v1\n");
    s.save([{ role: "user", content: "go" }]);
    s.beforeFileChange(join(project, "a.txt"));
    writeFileSync(join(project, "a.txt"), "v2\n");
    s.save([{ role: "user", content: "go" }, { role: "assistant", content: "ok" }, { role: "user", content: "more" }]);
    const indexFile = join(dir, "index.json");
    const index = JSON.parse(readFileSync(indexFile, "utf8"));
    const cp = index.checkpoints[0];
    const goodHash = (cp.before[join(project, "a.txt")] as { hash: string }).hash;
    expect(goodHash).toMatch(/^[0-9a-f]{64}$/);

    // Canaries outside, and a symlink in the project pointing out.
    writeFileSync(join(outside, "canary.txt"), "keep");
    writeFileSync(join(outside, "blobvictim"), "keep");
    writeFileSync(join(outside, "secret"), "outside secret");
    mkdirSync(join(outside, "linked"));
    writeFileSync(join(outside, "linked", "canary2.txt"), "keep");
    symlinkSync(join(outside, "linked"), join(project, "link"));
    const traverse = `../../../../outside/secret`;
    cp.before = {
      [join(project, "a.txt")]: { kind: "content", hash: traverse, size: 3 },
      [join(project, "b.txt")]: { kind: "content", hash: traverse, size: 3 },
      [join(outside, "canary.txt")]: { kind: "absent" },
      [join(outside, "written.txt")]: { kind: "content", hash: goodHash, size: 3 },
      [`${project}/../outside/dotdot.txt`]: { kind: "content", hash: goodHash, size: 3 },
      [join(project, "link", "canary2.txt")]: { kind: "absent" },
      [join(project, "link", "w2.txt")]: { kind: "content", hash: goodHash, size: 3 },
    };
    index.blobs[`../../../../outside/blobvictim`] = 4;
    index.known[join(outside, "canary.txt")] = { hash: traverse, size: 1, mtimeNs: "1", stored: true };
    index.checkpoints.push({ ...cp, id: "../../../outside/x", before: {} });
    writeFileSync(indexFile, JSON.stringify(index));

    const loaded = CheckpointStore.load(opts());
    expect(loaded.loadWarnings.join("\n")).toContain(indexFile);
    const target = loaded.list().find((c) => c.id === cp.id);
    expect(target).toBeDefined();
    expect(loaded.list().some((c) => c.id.includes(".."))).toBe(false);
    const r = await loaded.rewind({ type: "rewind", checkpointId: cp.id, mode: "code", deleteCreated: true, force: true }, []);
    expect(typeof r === "string" ? r : "ok").toBe("ok");
    await new Promise((res) => setTimeout(res, 5));

    expect(readFileSync(join(outside, "canary.txt"), "utf8")).toBe("keep");
    expect(readFileSync(join(outside, "blobvictim"), "utf8")).toBe("keep");
    expect(readFileSync(join(outside, "linked", "canary2.txt"), "utf8")).toBe("keep");
    expect(existsSync(join(outside, "written.txt"))).toBe(false);
    expect(existsSync(join(outside, "dotdot.txt"))).toBe(false);
    expect(existsSync(join(outside, "linked", "w2.txt"))).toBe(false);
    // The outside file's bytes never became a project file.
    expect(existsSync(join(project, "b.txt")) ? readFileSync(join(project, "b.txt"), "utf8") : "").not.toContain("outside secret");
    expect(readFileSync(join(project, "a.txt"), "utf8")).not.toContain("outside secret");
    const warns = events.filter((e) => e.type === "notice" && e.level === "warn");
    expect(warns.some((e) => e.type === "notice" && e.text.includes(indexFile))).toBe(true);
  });

  test("checkpointDir refuses a session id that is not a plain id", () => {
    expect(() => checkpointDir(root, "../../x")).toThrow();
    expect(checkpointDir(root, "20260101-abc_1")).toBe(join(root, "snapshots", "20260101-abc_1"));
  });
});

describe("a tampered exec-cache.json (the pre-exec copies, saved apart from index.json)", () => {
  test("entries outside the project or with a hash the index does not hold are dropped, with a warning", async () => {
    writeFileSync(join(project, "a.txt"), "v1\n");
    const s = new CheckpointStore(opts());
    s.save([{ role: "user", content: "go" }]);
    await s.aroundExec.after(await s.aroundExec.before());
    const cacheFile = join(dir, "exec-cache.json");
    const cache = JSON.parse(readFileSync(cacheFile, "utf8")) as Record<string, { hash: string; size: number; mtimeNs: string; stored: boolean }>;
    const good = cache[join(project, "a.txt")]!;
    expect(good.hash).toMatch(/^[0-9a-f]{64}$/);
    cache[join(outside, "canary.txt")] = good;
    cache[join(project, "b.txt")] = { ...good, hash: "../../../../outside/secret" };
    cache[join(project, "c.txt")] = { ...good, hash: "f".repeat(64) };
    writeFileSync(cacheFile, JSON.stringify(cache));
    const again = CheckpointStore.load(opts());
    const kept = Object.keys(again.toJSON().execCache ?? {});
    expect(kept).toEqual([join(project, "a.txt")]);
    expect(again.loadWarnings.join(" ")).toContain("outside the project");
  });
});
