/**
 * `p`, or a rejection with `new Error(message)` when it has not settled within `ms`. The timer is cleared either way;
 * `p` itself is not cancelled (the caller closes what it started). A rejection of `p` passes through unchanged.
 */
export function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
