/**
 * A WebSocket JSON-RPC client in its own process, for tests that stop (SIGSTOP: it no longer reads its socket) or
 * kill (SIGKILL) a client. Attaches to a session and prints every message it receives as one JSON line.
 *   bun test/support/ws-client-proc.ts <http-url> <token> <sessionId> [afterSeq]
 * Prints `READY <attach result json>` once attached, then one message per line, and `CLOSE <code>` at the end.
 */
const [url, token, sessionId, afterSeq] = process.argv.slice(2);
if (!url || !token || !sessionId) {
  process.stderr.write("usage: ws-client-proc.ts <http-url> <token> <sessionId> [afterSeq]\n");
  process.exit(2);
}
const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws`, { headers: { authorization: `Bearer ${token}` } } as unknown as string[]);
let attached = false;
ws.onopen = () => {
  ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } }));
  ws.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/load", params: { sessionId, ...(afterSeq ? { afterSeq: Number(afterSeq) } : {}) } }));
};
ws.onmessage = (e) => {
  const text = String(e.data);
  if (!attached) {
    const m = JSON.parse(text) as { id?: number; result?: unknown; error?: unknown };
    if (m.id === 2) {
      attached = true;
      process.stdout.write(`READY ${JSON.stringify(m.result ?? m.error)}\n`);
      return;
    }
    if (m.id === 1) return;
  }
  process.stdout.write(`${text}\n`);
};
// No process.exit(): it would drop what stdout has not flushed yet; with the socket closed the process ends by itself.
ws.onclose = (e) => {
  process.stdout.write(`CLOSE ${e.code}\n`);
};
