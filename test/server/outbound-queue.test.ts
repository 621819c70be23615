import { describe, expect, test } from "bun:test";
import { OutboundQueue } from "../../src/server/outbound-queue.ts";

/** A transport with a buffer of `room` frames; `take()` empties it like a reader would. */
function transport(room: number) {
  const written: string[] = [];
  let buffered = 0;
  return {
    written,
    write: (f: string) => {
      written.push(f);
      buffered++;
      return buffered < room;
    },
    take: () => {
      buffered = 0;
    },
  };
}

describe("OutboundQueue", () => {
  test("frames pass straight through while the transport takes them, in order", () => {
    const t = transport(100);
    const q = new OutboundQueue({ write: t.write, maxBytes: 10, onOverflow: () => undefined });
    for (const f of ["a", "b", "c"]) q.push(f);
    expect(t.written).toEqual(["a", "b", "c"]);
    expect(q.queuedBytes).toBe(0);
  });

  test("when the transport pushes back, frames wait and go out in order after drained()", () => {
    const t = transport(2);
    const q = new OutboundQueue({ write: t.write, maxBytes: 100, onOverflow: () => undefined });
    for (const f of ["1", "2", "3", "4"]) q.push(f);
    expect(t.written).toEqual(["1", "2"]);
    expect(q.queuedBytes).toBe(2);
    t.take();
    q.drained();
    expect(t.written).toEqual(["1", "2", "3", "4"]);
    expect(q.queuedBytes).toBe(0);
  });

  test("a client that never drains is dropped past maxBytes: onOverflow once, nothing more written, push never blocks", () => {
    const t = transport(1);
    const overflows: number[] = [];
    const q = new OutboundQueue({ write: t.write, maxBytes: 10, onOverflow: (n) => overflows.push(n) });
    for (let i = 0; i < 1000; i++) q.push("xxxx");
    expect(overflows).toEqual([12]);
    expect(q.isClosed).toBe(true);
    expect(t.written.length).toBe(1);
    q.drained();
    expect(t.written.length).toBe(1);
  });

  test("counts bytes, not characters", () => {
    const t = transport(1);
    const overflows: number[] = [];
    const q = new OutboundQueue({ write: t.write, maxBytes: 5, onOverflow: (n) => overflows.push(n) });
    q.push("first");
    q.push("ééé"); // 6 bytes
    expect(overflows).toEqual([6]);
  });
});
