import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { symlinkSync, utimesSync } from "node:fs";
import path from "node:path";
import { IgnoreStack, matchRules, parseGitignore } from "../../../src/tool/builtin/gitignore.ts";
import { globTool } from "../../../src/tool/builtin/glob.ts";
import { treeTool } from "../../../src/tool/builtin/tree.ts";
import { makeCtx, seedIgnoreFixture, type TempProject, tempProject } from "./support.ts";

let proj: TempProject;
beforeEach(() => {
  proj = tempProject("chatcli-tree-");
});
afterEach(() => proj.cleanup());

describe("gitignore matcher", () => {
  const cases: [pattern: string, path: string, isDir: boolean, ignored: boolean | undefined][] = [
    ["*.log", "a.log", false, true],
    ["*.log", "deep/dir/a.log", false, true],
    ["*.log", "a.logx", false, undefined],
    ["build/", "build", true, true],
    ["build/", "build", false, undefined],
    ["build/", "src/build", true, true],
    ["/root.txt", "root.txt", false, true],
    ["/root.txt", "sub/root.txt", false, undefined],
    ["docs/*.md", "docs/a.md", false, true],
    ["docs/*.md", "x/docs/a.md", false, undefined],
    ["docs/*.md", "docs/sub/a.md", false, undefined],
    ["**/logs", "a/b/logs", true, true],
    ["**/logs", "logs", true, true],
    ["a/**/b", "a/b", false, true],
    ["a/**/b", "a/x/y/b", false, true],
    ["out/**", "out/x/y.js", false, true],
    ["out/**", "out", true, undefined],
    ["file?.txt", "file1.txt", false, true],
    ["file?.txt", "file10.txt", false, undefined],
    ["[ab].c", "a.c", false, true],
    ["[!ab].c", "a.c", false, undefined],
    ["[!ab].c", "z.c", false, true],
    ["\\#hash", "#hash", false, true],
    ["trailing   ", "trailing", false, true],
    ["a.b", "axb", false, undefined],
  ];
  for (const [pattern, p, isDir, expected] of cases) {
    test(`${JSON.stringify(pattern)} vs ${p}${isDir ? "/" : ""} → ${expected}`, () => {
      expect(matchRules(parseGitignore(pattern), p, isDir)).toBe(expected);
    });
  }

  test("negation: the last matching rule wins; deeper files override shallower ones", () => {
    expect(matchRules(parseGitignore("*.log\n!keep.log"), "keep.log", false)).toBe(false);
    expect(matchRules(parseGitignore("!keep.log\n*.log"), "keep.log", false)).toBe(true);
    const stack = new IgnoreStack().push("", parseGitignore("*.gen")).push("pkg", parseGitignore("!special.gen"));
    expect(stack.isIgnored("pkg/special.gen", false)).toBe(false);
    expect(stack.isIgnored("other/special.gen", false)).toBe(true);
  });
});

describe("tree", () => {
  test("indented tree honoring .gitignore; .git skipped; node_modules listed but not expanded", async () => {
    seedIgnoreFixture(proj);
    const out = await treeTool.run({ depth: 4 }, makeCtx(proj.root));
    expect(out.isError).toBeUndefined();
    const expected = [
      "./",
      "  .hidden/",
      "    conf",
      "  docs/",
      "    a/",
      "      b/",
      "    readme.md",
      "  node_modules/ (not expanded)",
      "  src/",
      "    nested/",
      "      .gitignore",
      "      kept.ts",
      "    util/",
      "      helper.ts",
      "    main.ts",
      "  sub/",
      "    root-only.txt",
      "  .gitignore",
      "  bin.dat",
      "  keep.log",
      "",
      "9 directories, 10 files",
    ];
    expect(out.text.split("\n")).toEqual(expected);
    expect(out.details).toMatchObject({ path: ".", dirs: 9, files: 10, depth: 4 });
  });

  test("depth limits the levels; a subdirectory can be listed; .git/info/exclude applies", async () => {
    proj.file("a/b/c/d.txt", "");
    proj.file("a/x.txt", "");
    proj.file("a/secret.key", "");
    proj.file(".git/info/exclude", "*.key\n");
    const one = await treeTool.run({ path: "a", depth: 1 }, makeCtx(proj.root));
    expect(one.text.split("\n").slice(0, 3)).toEqual(["a/", "  b/", "  x.txt"]);
    expect(one.text).not.toContain("secret.key");
    expect(one.text).not.toContain("c/");
  });

  test("errors: missing directory, a file, outside the project", async () => {
    proj.file("f.txt", "");
    expect((await treeTool.run({ path: "nope" }, makeCtx(proj.root))).errorCode).toBe("ENOENT");
    expect((await treeTool.run({ path: "f.txt" }, makeCtx(proj.root))).errorCode).toBe("ENOTDIR");
    expect((await treeTool.run({ path: "/proc" }, makeCtx(proj.root))).errorCode).toBe("system_path");
  });

  test("symlinked directories are listed but not followed", async () => {
    const outside = tempProject("chatcli-tree-out-");
    try {
      outside.file("inner.txt", "");
      symlinkSync(outside.root, path.join(proj.root, "link"));
      const out = await treeTool.run({}, makeCtx(proj.root));
      expect(out.text).toContain("link (symlink)");
      expect(out.text).not.toContain("inner.txt");
    } finally {
      outside.cleanup();
    }
  });
});

describe("glob", () => {
  test("a name pattern matches at any depth; .gitignore and node_modules excluded", async () => {
    seedIgnoreFixture(proj);
    const out = await globTool.run({ pattern: "*.ts", sort: "path" }, makeCtx(proj.root));
    expect(out.text.split("\n")).toEqual(["src/main.ts", "src/nested/kept.ts", "src/util/helper.ts"]);
    const js = await globTool.run({ pattern: "**/*.js" }, makeCtx(proj.root));
    expect(js.text).toContain("No files match");
    const nm = await globTool.run({ pattern: "node_modules/**/*.js" }, makeCtx(proj.root));
    expect(nm.text).toBe("node_modules/pkg/index.js");
  });

  test("path patterns, braces, and newest-first ordering", async () => {
    const a = proj.file("src/a.tsx", "");
    const b = proj.file("src/b.ts", "");
    const c = proj.file("lib/c.ts", "");
    utimesSync(a, new Date(1_000_000), new Date(1_000_000));
    utimesSync(b, new Date(3_000_000), new Date(3_000_000));
    utimesSync(c, new Date(2_000_000), new Date(2_000_000));
    const out = await globTool.run({ pattern: "**/*.{ts,tsx}" }, makeCtx(proj.root));
    expect(out.text.split("\n")).toEqual(["src/b.ts", "lib/c.ts", "src/a.tsx"]);
    const src = await globTool.run({ pattern: "src/*.ts" }, makeCtx(proj.root));
    expect(src.text).toBe("src/b.ts");
    const under = await globTool.run({ pattern: "*.ts", path: "lib" }, makeCtx(proj.root));
    expect(under.text).toBe("lib/c.ts");
    expect(out.details).toMatchObject({ count: 3 });
  });
});
