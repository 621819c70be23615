// search, tree and glob never follow a symlink out of the allowed roots, whichever engine runs (rg or the
// built-in walker): a symlinked directory and file pointing outside the project, and a symlink loop.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import path from "node:path";
import { createSearchTool } from "../../../src/tool/builtin/search.ts";
import { globTool } from "../../../src/tool/builtin/glob.ts";
import { treeTool } from "../../../src/tool/builtin/tree.ts";
import { makeCtx, type TempProject, tempProject } from "./support.ts";

let proj: TempProject;
let outside: TempProject;

beforeAll(() => {
  proj = tempProject("chatcli-symlink-proj-");
  outside = tempProject("chatcli-symlink-out-");
  outside.file("secret-dir/leak.txt", "OUTSIDE_MARKER in a directory\n");
  outside.file("secret.txt", "OUTSIDE_MARKER in a file\n");
  proj.file("src/inside.txt", "INSIDE_MARKER\n");
  symlinkSync(path.join(outside.root, "secret-dir"), path.join(proj.root, "linkdir"));
  symlinkSync(path.join(outside.root, "secret.txt"), path.join(proj.root, "linkfile.txt"));
  symlinkSync(path.join(proj.root, "src"), path.join(proj.root, "src", "loop"));
  symlinkSync(proj.root, path.join(proj.root, "src", "up"));
});
afterAll(() => {
  proj.cleanup();
  outside.cleanup();
});

const hasRg = Bun.which("rg") !== null;
for (const engine of [
  { name: "ripgrep", useRipgrep: true, skip: !hasRg },
  { name: "builtin", useRipgrep: false, skip: false },
]) {
  describe.skipIf(engine.skip)(`search (${engine.name})`, () => {
    const tool = createSearchTool({ useRipgrep: engine.useRipgrep });
    test("does not read through symlinks out of the project, and a loop terminates", async () => {
      const out = await tool.run({ pattern: "MARKER" }, makeCtx(proj.root));
      expect(out.text).toContain("INSIDE_MARKER");
      expect(out.text).not.toContain("OUTSIDE_MARKER");
    });
    test("a glob naming the symlinked file finds nothing outside", async () => {
      const out = await tool.run({ pattern: "MARKER", glob: "link*" }, makeCtx(proj.root));
      expect(out.text).not.toContain("OUTSIDE_MARKER");
    });
    test("a symlink given as the path is refused", async () => {
      for (const p of ["linkdir", "linkfile.txt"]) {
        const out = await tool.run({ pattern: "MARKER", path: p }, makeCtx(proj.root));
        expect(out.text).not.toContain("OUTSIDE_MARKER");
        expect(out.isError).toBe(true);
      }
    });
  });
}

describe("tree and glob", () => {
  test("tree lists the links but never expands them", async () => {
    const out = await treeTool.run({ depth: 6 }, makeCtx(proj.root));
    expect(out.text).toContain("linkdir");
    expect(out.text).not.toContain("leak.txt");
    expect(out.isError).toBeFalsy();
  });
  test("glob does not descend into a symlinked directory or loop", async () => {
    const out = await globTool.run({ pattern: "**/*.txt" }, makeCtx(proj.root));
    expect(out.text).toContain("src/inside.txt");
    expect(out.text).not.toContain("leak.txt");
    expect(out.text).not.toContain("loop/");
  });
  test("a symlinked directory given as the root is refused", async () => {
    for (const tool of [treeTool, globTool]) {
      const out = await tool.run({ pattern: "*", path: "linkdir" }, makeCtx(proj.root));
      expect(out.isError).toBe(true);
      expect(out.text).not.toContain("leak.txt");
    }
  });
});
