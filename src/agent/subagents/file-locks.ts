/**
 * Per-file write locks shared by a session's children: a child's `write`/`edit` of a file another child is
 * writing waits until that write is done (no interleaved read-modify-write). Keys are absolute paths.
 */
export class FileLocks {
  private readonly tails = new Map<string, Promise<void>>();
  /** Paths held now (observability; tests read it). */
  readonly held = new Set<string>();

  /** Runs `work` holding the lock of `path`; waiters run in arrival order. */
  async with<T>(path: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(path) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((r) => (done = r));
    const tail = before.then(() => mine);
    this.tails.set(path, tail);
    await before;
    this.held.add(path);
    try {
      return await work();
    } finally {
      this.held.delete(path);
      done();
      if (this.tails.get(path) === tail) this.tails.delete(path);
    }
  }
}
