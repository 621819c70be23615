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
