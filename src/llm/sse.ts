/**
 * Server-sent events reader (the WHATWG event-stream format): `event:` / `data:` fields, events separated
 * by a blank line, multi-line data joined with "\n", comments (`:`) ignored. An incomplete trailing event
 * (no blank line before EOF) is dropped, as the spec says; providers detect a missing terminal event themselves.
 */
export interface SseEvent {
  event: string;
  data: string;
}

export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buf = "";
  let event = "";
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
        const line = buf.slice(0, nl);
        // "\r" at the very end may be the first half of "\r\n": wait for more input.
        if (buf[nl] === "\r" && nl === buf.length - 1) break;
        buf = buf.slice(nl + (buf.startsWith("\r\n", nl) ? 2 : 1));
        if (line === "") {
          if (data.length) yield { event: event || "message", data: data.join("\n") };
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let val = colon < 0 ? "" : line.slice(colon + 1);
        if (val.startsWith(" ")) val = val.slice(1);
        if (field === "event") event = val;
        else if (field === "data") data.push(val);
      }
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/** Parse a data payload as JSON; undefined when it is not JSON (the caller turns that into an error event). */
export function parseJsonData(data: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(data) };
  } catch {
    return { ok: false };
  }
}
