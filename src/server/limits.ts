/**
 * Operator knobs of the server's per-client limits. CHATCLI_SERVE_QUEUE_BYTES: how many bytes of frames may wait for
 * one client that reads too slowly before it is dropped with `server/closing {slow_client}` (every transport; the
 * default, 8 MiB, suits people; tests make it small).
 */
export function queueBytesFromEnv(env: Record<string, string | undefined>): number | undefined {
  const n = Number(env.CHATCLI_SERVE_QUEUE_BYTES);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
