/**
 * Stores are input too: a session file or a snapshot index may have been edited by someone else, so every id,
 * hash and path read from one is checked before it names a file. Ids are `[A-Za-z0-9_-]` (1–128 chars), blob
 * hashes lowercase sha256 hex; anything else is refused by the caller with a warning naming the file.
 */

const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A session id, checkpoint id or other name that becomes a file name under one of chatcli's directories. */
export function isSafeId(id: unknown): id is string {
  return typeof id === "string" && SAFE_ID.test(id);
}

/** A snapshot blob name: the sha256 of its bytes in hex. */
export function isBlobHash(hash: unknown): hash is string {
  return typeof hash === "string" && SHA256_HEX.test(hash);
}

/** Throws when `id` cannot safely name a file; for places that build paths from an id already validated upstream. */
export function assertSafeId(id: string, what: string): string {
  if (!isSafeId(id)) throw new Error(`refusing unsafe ${what} ${JSON.stringify(id)} (ids are letters, digits, "_" and "-")`);
  return id;
}
