/**
 * Content-addressed file store for checkpoint snapshots: `<dir>/<sha256>`, each content written once.
 * Writes go to a temp name and are renamed, so a crash never leaves a blob whose name lies about its bytes.
 * Every method reports failure by its return value; callers decide what an unwritable store means.
 * A content that holds a secret (`holdsSecret`: a value loaded from `.env`, a key shape) never reaches the disk: it
 * is kept in memory for this process only, so Esc Esc can still restore it, and after a restart it is missing
 * (the restore reports the file as not restorable instead of chatcli keeping secrets on disk).
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { mkdir, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isBlobHash } from "../../store/store-ids.ts";

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export class BlobStore {
  private readonly memory = new Map<string, Uint8Array>();

  constructor(
    readonly dir: string,
    private readonly holdsSecret?: (bytes: Uint8Array) => boolean,
  ) {}

  /** Only a sha256 hex name may become a path (an index.json can be tampered with: `../../x`). */
  private path(hash: string): string {
    if (!isBlobHash(hash)) throw new Error(`invalid blob name ${JSON.stringify(hash)}`);
    return join(this.dir, hash);
  }

  has(hash: string): boolean {
    if (this.memory.has(hash)) return true;
    try {
      return statSync(this.path(hash)).isFile();
    } catch {
      return false;
    }
  }

  /** Stores `bytes` (once); returns the hash, or an error message when the store cannot be written. */
  put(bytes: Uint8Array, hash = sha256(bytes)): { hash: string } | { error: string } {
    if (!isBlobHash(hash)) return { error: `invalid blob name ${JSON.stringify(hash)}` };
    if (this.has(hash)) return { hash };
    if (this.holdsSecret?.(bytes)) {
      this.memory.set(hash, bytes.slice());
      return { hash };
    }
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const tmp = `${this.path(hash)}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`;
      writeFileSync(tmp, bytes, { mode: 0o600 });
      renameSync(tmp, this.path(hash));
      return { hash };
    } catch (err) {
      return { error: (err as Error)?.message ?? String(err) };
    }
  }

  /** `put` without blocking the event loop (the exec path, which may copy thousands of files). */
  async putAsync(bytes: Uint8Array, hash = sha256(bytes)): Promise<{ hash: string } | { error: string }> {
    if (!isBlobHash(hash)) return { error: `invalid blob name ${JSON.stringify(hash)}` };
    if (this.memory.has(hash)) return { hash };
    const path = this.path(hash);
    if (await stat(path).then((s) => s.isFile(), () => false)) return { hash };
    // As put: a content holding a secret stays in memory, never on disk.
    if (this.holdsSecret?.(bytes)) {
      this.memory.set(hash, bytes.slice());
      return { hash };
    }
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`;
      await writeFile(tmp, bytes, { mode: 0o600 });
      await rename(tmp, path);
      return { hash };
    } catch (err) {
      return { error: (err as Error)?.message ?? String(err) };
    }
  }

  get(hash: string): Uint8Array | undefined {
    const kept = this.memory.get(hash);
    if (kept) return kept;
    try {
      return readFileSync(this.path(hash));
    } catch {
      return undefined;
    }
  }

  remove(hash: string): void {
    this.memory.delete(hash);
    if (isBlobHash(hash)) rmSync(this.path(hash), { force: true });
  }
}
