/**
 * chatcli's own secrets under its home: `server/` (the tokens of running `chatcli serve` instances: whoever holds
 * one drives the agent, approvals included) and `auth/` (provider OAuth tokens). No file tool may read or write them,
 * in any mode (bypass included), even when the project is the home itself; the sandbox masks the same directories
 * for commands (src/sandbox/fs-plan.ts), and the directory walks (search, glob, tree) never enter them. Compared
 * after resolving symlinks, so a link planted in the project does not reach them either.
 */
import { join } from "node:path";
import { chatcliHome } from "../../config/paths.ts";
import { realpathLenient } from "../workspace.ts";

export const CHATCLI_SECRET_DIRS = ["server", "auth"] as const;

/** The secret directory (`~/.chatcli/server`, …) that `path` is in or under, or undefined. */
export function chatcliSecretPath(path: string, chatcliHome: string): string | undefined {
  const real = realpathLenient(path);
  const home = realpathLenient(chatcliHome);
  for (const d of CHATCLI_SECRET_DIRS) {
    const dir = join(home, d);
    if (real === dir || real.startsWith(`${dir}/`)) return dir;
  }
  return undefined;
}

/** The secret directories (real paths) of the chatcli home `env` names (CHATCLI_HOME, or ~/.chatcli). */
export function chatcliSecretDirs(env: Record<string, string | undefined>): string[] {
  const home = realpathLenient(chatcliHome(env));
  return CHATCLI_SECRET_DIRS.map((d) => join(home, d));
}

/** `abs` (a real path) is one of `dirs` or under one. */
export function inSecretDir(abs: string, dirs: readonly string[]): boolean {
  return dirs.some((d) => abs === d || abs.startsWith(`${d}/`));
}
