// writeFileAtomic: the one atomic writer of chatcli's own files (tokens, approvals, settings, memory).
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "../../src/util/atomic-write.ts";

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "chatcli-atomic-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("writeFileAtomic", () => {
  test("creates missing directories, writes 0600 by default, replaces an old file whole", () => {
    const d = tmp();
    const f = join(d, "a", "b", "file.json");
    writeFileAtomic(f, "one\n");
    writeFileAtomic(f, "two\n");
    expect(readFileSync(f, "utf8")).toBe("two\n");
    expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(d, "a", "b"))).toEqual(["file.json"]);
  });

  test("mode and dirMode are honoured", () => {
    const d = tmp();
    const f = join(d, "private", "x");
    writeFileAtomic(f, "x", { mode: 0o644, dirMode: 0o700 });
    expect(statSync(f).mode & 0o777).toBe(0o644);
    expect(statSync(join(d, "private")).mode & 0o777).toBe(0o700);
  });

  test("a failed rename leaves the target untouched and no temp file behind", () => {
    const d = tmp();
    const target = join(d, "target");
    mkdirSync(join(target, "inside"), { recursive: true });
    expect(() => writeFileAtomic(target, "new")).toThrow();
    expect(readdirSync(d)).toEqual(["target"]);
    expect(readdirSync(target)).toEqual(["inside"]);
  });

  test("a symlink at the target is replaced by the file, never written through", () => {
    const d = tmp();
    const victim = join(d, "victim");
    writeFileSync(victim, "keep");
    const f = join(d, "link");
    symlinkSync(victim, f);
    writeFileAtomic(f, "mine");
    expect(readFileSync(victim, "utf8")).toBe("keep");
    expect(readFileSync(f, "utf8")).toBe("mine");
  });
});
