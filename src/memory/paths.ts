/**
 * Where memory lives: `<home>/memory/` (user scope) and `<home>/projects/<project-id>/memory/` (project scope).
 * The project id is the project root's folder name plus a hash of its real path, so two checkouts never share.
 */
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { basename, join } from "node:path";
import type { Scope } from "./types.ts";

export interface MemoryPaths {
  home: string;
  userDir: string;
  projectDir: string;
  projectId: string;
  /** One journal and one lock for both scopes: an undo may cross them. */
  journal: string;
  lock: string;
  state: string;
}

export function projectIdFor(projectRoot: string): string {
  let real = projectRoot;
  try {
    real = realpathSync(projectRoot);
  } catch {
    // a root that vanished keeps its spelled path
  }
  const name = basename(real).replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+/, "").slice(0, 40) || "root";
  return `${name}-${createHash("sha256").update(real).digest("hex").slice(0, 12)}`;
}

export function memoryPaths(home: string, projectRoot: string): MemoryPaths {
  const userDir = join(home, "memory");
  const projectId = projectIdFor(projectRoot);
  return {
    home,
    userDir,
    projectDir: join(home, "projects", projectId, "memory"),
    projectId,
    journal: join(userDir, "journal.jsonl"),
    lock: join(userDir, ".lock"),
    state: join(userDir, "state.json"),
  };
}

export function scopeDir(p: MemoryPaths, scope: Scope): string {
  return scope === "user" ? p.userDir : p.projectDir;
}
