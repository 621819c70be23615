/** Lines of a newline-delimited JSON stream (a Kubernetes watch), as they arrive. Cancels the body when the reader stops early. */
const MAX_LINE = 16 * 1024 * 1024;

export async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  try {
    for (;;) {
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
    await reader.cancel().catch(() => {});
  }
}
