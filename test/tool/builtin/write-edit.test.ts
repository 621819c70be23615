import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import path from "node:path";
import { unifiedDiff } from "../../../src/tool/builtin/diff.ts";
import { editTool } from "../../../src/tool/builtin/edit.ts";
import { writeTool } from "../../../src/tool/builtin/write.ts";
import { makeCtx, type TempProject, tempProject } from "./support.ts";

let proj: TempProject;
beforeEach(() => {
  proj = tempProject();
});
afterEach(() => proj.cleanup());

const read = (rel: string) => readFileSync(path.join(proj.root, rel), "utf8");

describe("write", () => {
  test("creates parent directories and reports created + bytes + diff", async () => {
    const out = await writeTool.run({ path: "a/b/c.txt", content: "héllo\nworld\n" }, makeCtx(proj.root));
    expect(out.isError).toBeUndefined();
    expect(read("a/b/c.txt")).toBe("héllo\nworld\n");
    expect(out.details).toMatchObject({ path: "a/b/c.txt", created: true, bytes: 13, lines: 2 });
    expect(String(out.details?.diff)).toContain("+héllo");
    expect(readdirSync(path.join(proj.root, "a/b"))).toEqual(["c.txt"]);
  });

  test("overwrites with a unified diff, keeps the file mode, allows empty content", async () => {
    const abs = proj.file("x.sh", "echo one\necho two\n");
    chmodSync(abs, 0o755);
    const out = await writeTool.run({ path: "x.sh", content: "echo one\necho 2\n" }, makeCtx(proj.root));
    expect(out.details?.created).toBe(false);
    expect(out.details?.diff).toBe("--- a/x.sh\n+++ b/x.sh\n@@ -1,2 +1,2 @@\n echo one\n-echo two\n+echo 2\n");
    expect(statSync(abs).mode & 0o777).toBe(0o755);
    const empty = await writeTool.run({ path: "x.sh", content: "" }, makeCtx(proj.root));
    expect(empty.isError).toBeUndefined();
    expect(read("x.sh")).toBe("");
  });

  test("refuses a directory, a symlink escape and a path outside the project", async () => {
    mkdirSync(path.join(proj.root, "dir"));
    expect((await writeTool.run({ path: "dir", content: "x" }, makeCtx(proj.root))).errorCode).toBe("EISDIR");
    const outside = tempProject("chatcli-write-out-");
    try {
      symlinkSync(outside.root, path.join(proj.root, "out"));
      expect((await writeTool.run({ path: "out/evil.txt", content: "x" }, makeCtx(proj.root))).errorCode).toBe("outside_project");
      expect(readdirSync(outside.root)).toEqual([]);
      // Extra read paths do not grant writing.
      const ctx = makeCtx(proj.root, { extraReadPaths: [outside.root] });
      expect((await writeTool.run({ path: path.join(outside.root, "y.txt"), content: "x" }, ctx)).errorCode).toBe("outside_project");
    } finally {
      outside.cleanup();
    }
  });

  test("missing content is an invalid_args error naming the field", async () => {
    const out = await writeTool.run({ path: "a.txt" }, makeCtx(proj.root));
    expect(out.errorCode).toBe("invalid_args");
    expect(out.text).toContain("- content:");
  });
});

describe("edit", () => {
  test("replaces a unique match and reports the diff", async () => {
    proj.file("m.ts", "const a = 1;\nconst b = 2;\n");
    const out = await editTool.run({ path: "m.ts", old_string: "const b = 2;", new_string: "const b = 3;" }, makeCtx(proj.root));
    expect(out.isError).toBeUndefined();
    expect(read("m.ts")).toBe("const a = 1;\nconst b = 3;\n");
    expect(out.details).toMatchObject({ path: "m.ts", replacements: 1 });
    expect(String(out.details?.diff)).toContain("-const b = 2;\n+const b = 3;");
  });

  test("more than one match is refused with the count unless replace_all", async () => {
    proj.file("r.txt", "foo\nbar foo\nfoo\n");
    const out = await editTool.run({ path: "r.txt", old_string: "foo", new_string: "baz" }, makeCtx(proj.root));
    expect(out.errorCode).toBe("ambiguous_match");
    expect(out.text).toContain("matches 3 times");
    expect(out.text).toContain("replace_all");
    expect(read("r.txt")).toBe("foo\nbar foo\nfoo\n");
    const all = await editTool.run({ path: "r.txt", old_string: "foo", new_string: "$&baz", replace_all: true }, makeCtx(proj.root));
    expect(all.details?.replacements).toBe(3);
    expect(read("r.txt")).toBe("$&baz\nbar $&baz\n$&baz\n");
  });

  test("no match is an error that points at the closest line", async () => {
    proj.file("w.py", "def main():\n    print('hello world')\n");
    const out = await editTool.run({ path: "w.py", old_string: "  print('hello world')\n  return", new_string: "x" }, makeCtx(proj.root));
    expect(out.errorCode).toBe("no_match");
    expect(out.text).toContain("not found");
    expect(out.text).toContain("Line 2");
  });

  test("multi-edit applies in order, all or nothing", async () => {
    proj.file("cfg.txt", "alpha=1\nbeta=2\ngamma=3\n");
    const ok = await editTool.run(
      {
        path: "cfg.txt",
        edits: [
          { old_string: "alpha=1", new_string: "alpha=10" },
          { old_string: "alpha=10\nbeta=2", new_string: "alpha=10\nbeta=20" },
        ],
      },
      makeCtx(proj.root),
    );
    expect(ok.details?.replacements).toBe(2);
    expect(read("cfg.txt")).toBe("alpha=10\nbeta=20\ngamma=3\n");

    const bad = await editTool.run(
      {
        path: "cfg.txt",
        edits: [
          { old_string: "gamma=3", new_string: "gamma=30" },
          { old_string: "delta=4", new_string: "delta=40" },
        ],
      },
      makeCtx(proj.root),
    );
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain("edit 2 of 2");
    expect(bad.text).toContain("No changes were written");
    expect(read("cfg.txt")).toBe("alpha=10\nbeta=20\ngamma=3\n");
  });

  test("CRLF files match LF old_string and keep CRLF", async () => {
    proj.file("win.txt", "one\r\ntwo\r\nthree\r\n");
    const out = await editTool.run({ path: "win.txt", old_string: "one\ntwo", new_string: "uno\ndos" }, makeCtx(proj.root));
    expect(out.isError).toBeUndefined();
    expect(read("win.txt")).toBe("uno\r\ndos\r\nthree\r\n");
  });

  test("argument errors: identical strings, half a pair, nothing to do, missing file", async () => {
    proj.file("f.txt", "abc");
    expect((await editTool.run({ path: "f.txt", old_string: "abc", new_string: "abc" }, makeCtx(proj.root))).errorCode).toBe("no_change");
    const half = await editTool.run({ path: "f.txt", old_string: "abc" }, makeCtx(proj.root));
    expect(half.errorCode).toBe("invalid_args");
    expect(half.text).toContain("new_string");
    const none = await editTool.run({ path: "f.txt" }, makeCtx(proj.root));
    expect(none.errorCode).toBe("invalid_args");
    expect(none.text).toContain("edits");
    expect((await editTool.run({ path: "nope.txt", old_string: "a", new_string: "b" }, makeCtx(proj.root))).errorCode).toBe("ENOENT");
  });

  test("an empty old_string creates a missing file but is refused on a non-empty one", async () => {
    const out = await editTool.run({ path: "new/n.txt", old_string: "", new_string: "fresh\n" }, makeCtx(proj.root));
    expect(out.details?.created).toBe(true);
    expect(read("new/n.txt")).toBe("fresh\n");
    expect((await editTool.run({ path: "new/n.txt", old_string: "", new_string: "x" }, makeCtx(proj.root))).errorCode).toBe("invalid_args");
  });

  test("old_str/new_str aliases work", async () => {
    proj.file("al.txt", "a b");
    const out = await editTool.run({ file_path: "al.txt", old_str: "b", new_str: "c" }, makeCtx(proj.root));
    expect(out.isError).toBeUndefined();
    expect(read("al.txt")).toBe("a c");
  });
});

describe("unifiedDiff", () => {
  test("separate hunks for distant changes, with line numbers", () => {
    const a = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join("\n");
    const b = a.replace("l2\n", "L2\n").replace("l18\n", "");
    const d = unifiedDiff(a, b, { oldName: "a/f", newName: "b/f" });
    expect(d.added).toBe(1);
    expect(d.removed).toBe(2);
    expect(d.text).toContain("@@ -1,5 +1,5 @@\n l1\n-l2\n+L2\n l3");
    expect(d.text).toContain("@@ -15,6 +15,5 @@\n l15\n l16\n l17\n-l18\n l19\n l20");
  });

  test("identical texts give an empty diff; a huge rewrite falls back to one block", () => {
    expect(unifiedDiff("a\nb\n", "a\nb\n").text).toBe("");
    const a = Array.from({ length: 300 }, (_, i) => `a${i}`).join("\n");
    const b = Array.from({ length: 300 }, (_, i) => `b${i}`).join("\n");
    const d = unifiedDiff(a, b, { maxEditDistance: 10, maxChars: 1_000_000 });
    expect(d.added).toBe(300);
    expect(d.removed).toBe(300);
  });
});
