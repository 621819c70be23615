// Kubernetes quantities (memory limits and metrics-server usage) and the watch stream's line reader.
import { describe, expect, test } from "bun:test";
import { formatBytes, parseQuantity } from "../../src/k8s/metrics.ts";
import { ndjsonLines } from "../../src/k8s/ndjson.ts";

describe("quantities", () => {
  test("binary and decimal suffixes, exponents, millis; garbage is undefined", () => {
    expect(parseQuantity("256Mi")).toBe(268435456);
    expect(parseQuantity("250880Ki")).toBe(256901120);
    expect(parseQuantity("1Gi")).toBe(2 ** 30);
    expect(parseQuantity("1.5G")).toBe(1.5e9);
    expect(parseQuantity("128974848")).toBe(128974848);
    expect(parseQuantity("129e6")).toBe(129e6);
    expect(parseQuantity("500m")).toBe(0.5);
    expect(parseQuantity("12 apples")).toBeUndefined();
    expect(formatBytes(256901120)).toBe("245Mi");
    expect(formatBytes(1536)).toBe("1.5Ki");
  });
});

describe("ndjson lines", () => {
  test("lines split across chunks, blank lines skipped, a last line without newline kept", async () => {
    const chunks = ['{"a":', '1}\n\n{"b"', ':2}\n{"c":3}'];
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(new TextEncoder().encode(ch));
        c.close();
      },
    });
    const out: string[] = [];
    for await (const line of ndjsonLines(body)) out.push(line);
    expect(out).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  test("an abort ends a stream that would never close", async () => {
    const ac = new AbortController();
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"x":1}\n'));
      },
    });
    const out: string[] = [];
    for await (const line of ndjsonLines(body, ac.signal)) {
      out.push(line);
      ac.abort();
    }
    expect(out).toEqual(['{"x":1}']);
  });
});
