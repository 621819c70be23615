/**
 * What `chatcli mcp import` will write: every candidate from sources.ts either lands in a scope (user-wide files →
 * the user settings, project files → the project's `.mcp.json`, unless a scope is forced) or is skipped with a
 * reason: the name is taken there already (never overwritten), an earlier source brought the same name, the entry
 * cannot be expressed, or it is exactly what is configured already. Names we cannot use are made safe (renamed).
 */
import { isDeepStrictEqual } from "node:util";
import type { EditableScope } from "../config-files.ts";
import { mcpServerSchema } from "../server-config.ts";
import type { ImportTool, SourceRead } from "./sources.ts";

export interface PlannedServer {
  name: string;
  /** The name in the source file, when it had to change. */
  renamedFrom?: string;
  entry: Record<string, unknown>;
  tool: ImportTool;
  file: string;
  /** The source is a user-wide file (its servers are the user's own choice, not repository content). */
  fromUserFile: boolean;
  target: EditableScope;
}

export type SkipReason =
  | { kind: "exists"; scope: EditableScope }
  | { kind: "same"; scope: EditableScope }
  | { kind: "clash"; file: string }
  | { kind: "duplicate"; file: string }
  | { kind: "unsupported"; why: string };

export interface SkippedServer {
  name: string;
  tool: ImportTool;
  file: string;
  reason: SkipReason;
}

export function planImport(
  reads: readonly SourceRead[],
  existing: Record<EditableScope, Record<string, unknown>>,
  forced?: EditableScope,
): { add: PlannedServer[]; skipped: SkippedServer[] } {
  const add: PlannedServer[] = [];
  const skipped: SkippedServer[] = [];
  for (const read of reads) {
    for (const c of read.servers) {
      const skip = (reason: SkipReason) => skipped.push({ name: c.name, tool: read.tool, file: read.file, reason });
      if (!c.entry) {
        skip({ kind: "unsupported", why: c.unsupported ?? "unknown shape" });
        continue;
      }
      const name = safeName(c.name);
      if (!name) {
        skip({ kind: "unsupported", why: "the name has no usable character" });
        continue;
      }
      const parsed = mcpServerSchema.safeParse(c.entry);
      if (!parsed.success) {
        skip({ kind: "unsupported", why: parsed.error.issues.map((i) => `${i.path.join(".") || "entry"}: ${i.message}`).join("; ") });
        continue;
      }
      const target = forced ?? (read.level === "project" ? "project" : "user");
      const earlier = add.find((a) => a.name === name);
      if (earlier) {
        skip(isDeepStrictEqual(earlier.entry, c.entry) ? { kind: "duplicate", file: earlier.file } : { kind: "clash", file: earlier.file });
        continue;
      }
      const there = existing[target][name];
      if (there !== undefined) {
        skip(isDeepStrictEqual(there, c.entry) ? { kind: "same", scope: target } : { kind: "exists", scope: target });
        continue;
      }
      add.push({ name, ...(name !== c.name ? { renamedFrom: c.name } : {}), entry: c.entry, tool: read.tool, file: read.file, fromUserFile: read.level === "user", target });
    }
  }
  return { add, skipped };
}

/** Letters, digits, `_` and `-` only (the name becomes part of tool names), 64 at most. */
export function safeName(name: string): string {
  return name
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);
}
