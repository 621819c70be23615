/** Shared fixtures for the builtin tool tests: a real temp project and a ToolContext over it. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ToolContext } from "../../../src/tool/tool.ts";
import { createPathPolicy } from "../../../src/tool/workspace.ts";

export interface TempProject {
  root: string;
  file(rel: string, content: string | Uint8Array): string;
  cleanup(): void;
}

export function tempProject(prefix = "chatcli-tool-"): TempProject {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  return {
    root,
    file(rel, content) {
      const abs = path.join(root, rel);
      mkdirSync(path.dirname(abs), { recursive: true });
      writeFileSync(abs, content);
      return abs;
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export function makeCtx(root: string, overrides: Partial<ToolContext> & { extraReadPaths?: string[] } = {}): ToolContext {
  const { extraReadPaths, ...rest } = overrides;
  return {
    projectRoot: root,
    cwd: root,
    paths: createPathPolicy({ projectRoot: root, extraReadPaths: extraReadPaths ?? [] }),
    signal: new AbortController().signal,
    callId: "call_1",
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    ...rest,
  };
}

/** True when the string holds a lone surrogate (a pair split by a bad cut). */
export function hasLoneSurrogate(s: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

/** A project exercising .gitignore features; `TODO` marks lines, the comment says whether search must see them. */
export function seedIgnoreFixture(p: TempProject): void {
  p.file(".gitignore", "build/\n*.log\n!keep.log\n/root-only.txt\ndocs/**/*.tmp\n# comment\n");
  p.file("src/main.ts", "// TODO: main\nexport {};\n");
  p.file("src/util/helper.ts", "// todo helper\n");
  p.file("src/nested/.gitignore", "generated.ts\n");
  p.file("src/nested/generated.ts", "TODO generated\n"); // ignored by the nested .gitignore
  p.file("src/nested/kept.ts", "TODO kept\n");
  p.file("build/out.js", "TODO built\n"); // ignored dir
  p.file("app.log", "TODO log\n"); // ignored by *.log
  p.file("keep.log", "TODO keep\n"); // re-included by !keep.log
  p.file("root-only.txt", "TODO root\n"); // anchored ignore
  p.file("sub/root-only.txt", "TODO sub\n"); // anchored pattern does not reach here
  p.file("docs/a/b/x.tmp", "TODO tmp\n"); // ignored by docs/**/*.tmp
  p.file("docs/readme.md", "TODO docs\n");
  p.file("node_modules/pkg/index.js", "TODO nm\n"); // always skipped
  p.file(".git/HEAD", "TODO git\n"); // always skipped
  p.file(".hidden/conf", "TODO hidden\n");
  p.file("bin.dat", new Uint8Array([0, 1, 2, ...new TextEncoder().encode("TODO binary\n")]));
}
