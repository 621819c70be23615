/**
 * Lines of a newline-delimited JSON stream (a Kubernetes watch), as they arrive. Cancels the body when the reader
 * stops early or `signal` aborts (the abort is applied to the reader itself: a fetch's signal has been seen not to
 * end a pending body read under Bun once the server behind a kept-alive connection was replaced).
 */
const MAX_LINE = 16 * 1024 * 1024;

export async function* ndjsonLines(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  signal?.addEventListener("abort", stop, { once: true });
  const dec = new TextDecoder();
  let buf = "";
  try {
    for (;;) {
      if (signal?.aborted) break;
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let i = buf.indexOf("\n");
      while (i >= 0) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (line) yield line;
        i = buf.indexOf("\n");
      }
      if (buf.length > MAX_LINE) throw new Error(`a watch event longer than ${MAX_LINE} bytes`);
    }
    const rest = (buf + dec.decode()).trim();
    if (rest) yield rest;
  } finally {
    signal?.removeEventListener("abort", stop);
    // Not awaited: under Bun, cancelling a fetch body whose server went away has been seen never to settle.
    stop();
  }
}
