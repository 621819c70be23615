/**
 * `/diff` (issue 25): every file changed in this session (known from the checkpoints: tools, `exec`, `!`), from its
 * content at the oldest checkpoint kept to its content now, as one unified diff with per-file `+added -removed`
 * stats and a total. Files that ended as they started are left out; binary and uncopied files get one line.
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { t } from "../../i18n/i18n.ts";
import { unifiedDiff } from "../../tool/builtin/diff.ts";

export interface SessionChange {
  path: string;
  before: Uint8Array | null | { unrestorable: string };
}

export interface FileDiff {
  path: string;
  added: number;
  removed: number;
  /** The unified diff, or a one-line note (binary, no copy kept). */
  text: string;
}

export interface SessionDiff {
  files: FileDiff[];
  added: number;
  removed: number;
}

/** Per file this big the diff text is cut (the stats stay exact). */
const MAX_FILE_DIFF_CHARS = 60_000;

export function sessionDiff(changes: readonly SessionChange[], projectRoot: string): SessionDiff {
  const files: FileDiff[] = [];
  for (const c of changes) {
    const now = readNow(c.path);
    const name = relative(projectRoot, c.path) || c.path;
    if (c.before !== null && !(c.before instanceof Uint8Array)) {
      files.push({ path: name, added: 0, removed: 0, text: t("diff.unrestorable", { path: name, reason: c.before.unrestorable }) });
      continue;
    }
    if (c.before === null && now === null) continue;
    if (c.before && now && Buffer.from(c.before).equals(Buffer.from(now))) continue;
    if (isBinary(c.before) || isBinary(now)) {
      files.push({ path: name, added: 0, removed: 0, text: t("diff.binary", { path: name }) });
      continue;
    }
    const oldText = c.before ? new TextDecoder().decode(c.before) : "";
    const newText = now ? new TextDecoder().decode(now) : "";
    const d = unifiedDiff(oldText, newText, { oldName: c.before ? `a/${name}` : "/dev/null", newName: now ? `b/${name}` : "/dev/null", maxChars: MAX_FILE_DIFF_CHARS });
    if (!d.text) continue;
    files.push({ path: name, added: d.added, removed: d.removed, text: d.text.replace(/\n$/, "") });
  }
  return { files, added: files.reduce((n, f) => n + f.added, 0), removed: files.reduce((n, f) => n + f.removed, 0) };
}

/** The text /diff shows: the stats table, then each file's diff. */
export function formatSessionDiff(d: SessionDiff): string {
  if (!d.files.length) return t("diff.none");
  const width = Math.min(60, Math.max(...d.files.map((f) => f.path.length)));
  const stats = d.files.map((f) => ` ${f.path.padEnd(width)} | +${f.added} -${f.removed}`);
  const total = t(d.files.length === 1 ? "diff.statsOne" : "diff.stats", { files: d.files.length, added: d.added, removed: d.removed });
  return [...stats, ` ${total}`, "", ...d.files.map((f) => f.text)].join("\n");
}

function readNow(path: string): Uint8Array | null {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}

function isBinary(bytes: Uint8Array | null): boolean {
  if (!bytes) return false;
  const n = Math.min(bytes.length, 8_000);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}
