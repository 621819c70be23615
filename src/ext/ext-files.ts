/**
 * Where skills, agent definitions and custom commands come from, and the asynchronous reads discovery makes
 * (never blocking the event loop: start-up renders while they run). A missing directory is no error.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";

/** `builtin`: shipped with chatcli (agent definitions only). */
export type ExtScope = "project" | "user" | "builtin";

export interface ExtRoots {
  projectRoot: string;
  /** chatcli's home (`~/.chatcli`, or CHATCLI_HOME). */
  chatcliHome: string;
  /** The user's home directory, for `~/.claude/…`; absent: those folders are not searched. */
  userHome?: string;
}

export interface ExtDir {
  dir: string;
  scope: ExtScope;
}

/** A file over this size is skipped with a warning: these are prompts, not data. */
export const MAX_EXT_FILE_BYTES = 256 * 1024;

/** The folders of one kind (`skills`, `agents`, `commands`), highest precedence first: project, then user. */
export function extDirs(r: ExtRoots, kind: "skills" | "agents" | "commands"): ExtDir[] {
  const project: ExtDir[] = [{ dir: join(r.projectRoot, ".chatcli", kind), scope: "project" }, { dir: join(r.projectRoot, ".claude", kind), scope: "project" }];
  // `.agents/skills/` is the cross-tool location (Codex and others) for skills only.
  if (kind === "skills") project.push({ dir: join(r.projectRoot, ".agents", kind), scope: "project" });
  const user: ExtDir[] = [{ dir: join(r.chatcliHome, kind), scope: "user" }];
  if (r.userHome) user.push({ dir: join(r.userHome, ".claude", kind), scope: "user" });
  return [...project, ...user];
}

/** Entry names of a directory, sorted; [] when it does not exist or cannot be read. */
export async function listDir(dir: string): Promise<Array<{ name: string; isDir: boolean; isFile: boolean }>> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    const out = await Promise.all(
      entries.map(async (e) => {
        // A symlinked folder or file counts as what it points at.
        if (e.isSymbolicLink()) {
          const s = await stat(join(dir, e.name)).catch(() => undefined);
          return { name: e.name, isDir: s?.isDirectory() ?? false, isFile: s?.isFile() ?? false };
        }
        return { name: e.name, isDir: e.isDirectory(), isFile: e.isFile() };
      }),
    );
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

/** The file's text; an error when it is too big or unreadable; undefined when it does not exist. */
export async function readExtFile(path: string): Promise<{ text: string } | { error: "too_big" | "unreadable"; detail: string } | undefined> {
  try {
    const buf = await readFile(path);
    if (buf.byteLength > MAX_EXT_FILE_BYTES) return { error: "too_big", detail: String(buf.byteLength) };
    return { text: buf.toString("utf8") };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException)?.code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    return { error: "unreadable", detail: code ?? String(err) };
  }
}

/** Lowercase letters, digits and single hyphens, ≤ 64 characters (the Agent Skills rule, used for all three kinds). */
export function isExtName(name: string): boolean {
  return name.length > 0 && name.length <= 64 && /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(name);
}
