/**
 * Ends the process without losing output. Bun writes to pipes asynchronously, and `process.exit()` drops
 * what a slow reader has not taken yet (`chatcli -p … --output-format stream-json | consumer` got only the
 * first 64 KB). So when stdout is not a terminal the exit code is set and the event loop ends by itself,
 * which Bun delays until pending writes are flushed; the forced exit after `graceMs` only covers a
 * handle left open by mistake (it is unref'd, so it never delays a clean exit).
 */
export function exitWhenFlushed(code: number, opts: { stdoutIsTTY?: boolean; graceMs?: number; exit?: (code: number) => never } = {}): void {
  const exit = opts.exit ?? ((c: number) => process.exit(c));
  if (opts.stdoutIsTTY ?? process.stdout.isTTY) {
    exit(code);
    return;
  }
  process.exitCode = code;
  setTimeout(() => exit(code), opts.graceMs ?? 10_000).unref();
}
