import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSearchTool } from "../../../src/tool/builtin/search.ts";
import { makeCtx, seedIgnoreFixture, type TempProject, tempProject } from "./support.ts";

let proj: TempProject;

const VISIBLE_TODO = [".hidden/conf:1:TODO hidden", "docs/readme.md:1:TODO docs", "keep.log:1:TODO keep", "src/main.ts:1:// TODO: main", "src/nested/kept.ts:1:TODO kept", "sub/root-only.txt:1:TODO sub"];

beforeAll(() => {
  proj = tempProject("chatcli-search-");
  seedIgnoreFixture(proj);
  proj.file("many/lines.txt", Array.from({ length: 50 }, (_, i) => `needle ${i}`).join("\n"));
});
afterAll(() => proj.cleanup());

const hasRg = Bun.which("rg") !== null;
const engines: { name: string; useRipgrep: boolean; skip: boolean }[] = [
  { name: "ripgrep", useRipgrep: true, skip: !hasRg },
  { name: "builtin", useRipgrep: false, skip: false },
];

for (const engine of engines) {
  describe.skipIf(engine.skip)(`search (${engine.name})`, () => {
    const tool = createSearchTool({ useRipgrep: engine.useRipgrep });

    test("finds matches as path:line:text, honoring .gitignore, skipping .git, node_modules and binaries", async () => {
      const out = await tool.run({ pattern: "TODO" }, makeCtx(proj.root));
      expect(out.isError).toBeUndefined();
      expect(out.text.split("\n").sort()).toEqual(VISIBLE_TODO);
      expect(out.details).toMatchObject({ matches: 6, files: 6, engine: engine.name });
    });

    test("ignore_case, glob and path narrow the search", async () => {
      const ci = await tool.run({ pattern: "todo", ignore_case: true, path: "src" }, makeCtx(proj.root));
      expect(ci.text.split("\n").sort()).toEqual(["src/main.ts:1:// TODO: main", "src/nested/kept.ts:1:TODO kept", "src/util/helper.ts:1:// todo helper"]);
      const md = await tool.run({ pattern: "TODO", glob: "*.md" }, makeCtx(proj.root));
      expect(md.text).toBe("docs/readme.md:1:TODO docs");
      const one = await tool.run({ pattern: "main", path: "src/main.ts" }, makeCtx(proj.root));
      expect(one.text).toBe("src/main.ts:1:// TODO: main");
    });

    test("no matches is a normal result, not an error", async () => {
      const out = await tool.run({ pattern: "zzz_not_present_anywhere" }, makeCtx(proj.root));
      expect(out.isError).toBeUndefined();
      expect(out.text).toContain("No matches");
      expect(out.details?.matches).toBe(0);
    });

    test("max_results stops early and says so", async () => {
      const out = await tool.run({ pattern: "needle \\d+", max_results: 5 }, makeCtx(proj.root));
      const lines = out.text.split("\n");
      expect(lines.filter((l) => l.startsWith("many/lines.txt:"))).toHaveLength(5);
      expect(out.text).toContain("stopped at 5 matches");
      expect(out.details?.limited).toBe(true);
    });

    test("literal mode and invalid regex", async () => {
      proj.file("lit.txt", "call(a+b)\n");
      const lit = await tool.run({ pattern: "(a+b)", literal: true, path: "lit.txt" }, makeCtx(proj.root));
      expect(lit.text).toBe("lit.txt:1:call(a+b)");
      const bad = await tool.run({ pattern: "(unclosed" }, makeCtx(proj.root));
      expect(bad.isError).toBe(true);
      expect(bad.errorCode).toBe("invalid_pattern");
      expect(bad.text).toContain("literal=true");
    });

    test("paths outside the project are refused", async () => {
      const out = await tool.run({ pattern: "root", path: "/etc" }, makeCtx(proj.root));
      expect(out.errorCode).toBe("system_path");
    });
  });
}

test("the default tool falls back to the builtin search when rg is not on ctx.env.PATH", async () => {
  const tool = createSearchTool();
  const out = await tool.run({ pattern: "TODO kept" }, makeCtx(proj.root, { env: { PATH: "/nonexistent-bin" } }));
  expect(out.details?.engine).toBe("builtin");
  expect(out.text).toBe("src/nested/kept.ts:1:TODO kept");
});
