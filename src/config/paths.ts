/** Where chatcli keeps its files. `CHATCLI_HOME` overrides `~/.chatcli` (tests always set it). */
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";

export function chatcliHome(env: Record<string, string | undefined>): string {
  const h = env.CHATCLI_HOME;
  if (h && h.trim()) return resolve(h);
  return join(env.HOME || homedir(), ".chatcli");
}

/** Walk up from `cwd` to a directory holding `.agent/` (wins) or `.git/`; else `cwd` itself. */
export function findProjectRoot(cwd: string): string {
  const start = resolve(cwd);
  let gitRoot: string | undefined;
  for (let dir = start; ; dir = dirname(dir)) {
    if (isDir(join(dir, ".agent"))) return dir;
    if (!gitRoot && existsSync(join(dir, ".git"))) gitRoot = dir;
    if (dirname(dir) === dir) break;
  }
  return gitRoot ?? start;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
