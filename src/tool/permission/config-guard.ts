/**
 * A safety net for `exec` calls no person approved (auto-allowed as read-only, by a rule, by bypass mode, or by
 * the sandbox): the small protected files that turn into code execution or self-granted permissions (chatcli's
 * settings.json and coder_policy.json, user and project; `.git/config` and `.git/hooks/*`; the user's shell startup
 * files) are read before the command and compared after it. A file the command changed, created or deleted is put
 * back, and the caller reports it. The word check in protected.ts asks before such commands; this catches what
 * words cannot show (a symlink made earlier, a program that writes them on its own).
 */
import { randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/** Larger files are not guarded (hooks and configs are small; a huge file is not ours to copy). */
const MAX_BYTES = 1024 * 1024;
const RC_FILES = [".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".gitconfig"];

export interface ConfigGuardOptions {
  chatcliHome: string;
  projectRoot: string;
  userHome?: string;
}

interface FileState {
  bytes: Buffer;
  mode: number;
}
/** Path → content before the command (null: it did not exist; undefined: not guarded, e.g. a symlink or too large). */
export type GuardSnapshot = Map<string, FileState | null | undefined>;

export interface ConfigGuard {
  snapshot(): Promise<GuardSnapshot>;
  /** Puts back every guarded file the command changed; returns their paths (empty when nothing changed). */
  restore(before: GuardSnapshot): Promise<string[]>;
}

export function createConfigGuard(o: ConfigGuardOptions): ConfigGuard {
  const fixed = [
    join(o.chatcliHome, "settings.json"),
    join(o.chatcliHome, "coder_policy.json"),
    join(o.projectRoot, ".chatcli", "settings.json"),
    join(o.projectRoot, ".chatcli", "coder_policy.json"),
    join(o.projectRoot, ".git", "config"),
    ...(o.userHome ? RC_FILES.map((f) => join(o.userHome as string, f)) : []),
  ];
  const hooksDir = join(o.projectRoot, ".git", "hooks");
  const paths = async () => [...new Set([...fixed, ...(await listHooks(hooksDir))])];
  return {
    async snapshot() {
      const out: GuardSnapshot = new Map();
      await Promise.all((await paths()).map(async (p) => out.set(p, await readSmall(p, false))));
      return out;
    },
    async restore(before) {
      const restored: string[] = [];
      const now = [...new Set([...before.keys(), ...(await paths())])];
      await Promise.all(
        now.map(async (p) => {
          const was = before.has(p) ? before.get(p) : null;
          if (was === undefined) return; // not guarded (a symlink, a directory or too large before the command)
          const is = await readSmall(p, true);
          if (is === undefined || same(was, is)) return;
          try {
            if (was === null) await rm(p, { force: true });
            else await atomicRestore(p, was);
            restored.push(p);
          } catch {
            restored.push(`${p} (could not be restored)`);
          }
        }),
      );
      return restored.sort();
    },
  };
}

async function listHooks(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).map((n) => join(dir, n));
  } catch {
    return [];
  }
}

/**
 * The file's bytes and mode; null when absent; undefined when not guarded (too large, not a regular file). A
 * symlink is not guarded before the command (dotfile managers link rc files), but one that replaced a regular
 * file after it is a change (`LINK`).
 */
async function readSmall(p: string, after: boolean): Promise<FileState | null | undefined> {
  try {
    const st = await lstat(p);
    if (st.isSymbolicLink()) return after ? LINK : undefined;
    if (!st.isFile() || st.size > MAX_BYTES) return undefined;
    return { bytes: await readFile(p), mode: st.mode & 0o7777 };
  } catch (err) {
    return (err as { code?: string }).code === "ENOENT" ? null : undefined;
  }
}

const LINK: FileState = { bytes: Buffer.alloc(0), mode: -1 };

function same(a: FileState | null, b: FileState | null): boolean {
  if (a === null || b === null) return a === b;
  return a.mode === b.mode && a.bytes.equals(b.bytes);
}

/** Temp file + rename (mode kept): replaces a symlink put in the file's place instead of writing through it. */
async function atomicRestore(p: string, was: FileState): Promise<void> {
  await mkdir(dirname(p), { recursive: true });
  const tmp = join(dirname(p), `.chatcli-restore-${randomBytes(6).toString("hex")}`);
  await writeFile(tmp, was.bytes, { mode: was.mode });
  await chmod(tmp, was.mode);
  await rename(tmp, p);
}
