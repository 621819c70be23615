// serve --stdio's outbound side over a real node:stream Writable whose reader we pause: backpressure, a slow reader
// dropped with server/closing, the per-frame size cap. Real Sessions (wireSession + scripted provider) behind it.
import { afterEach, describe, expect, test } from "bun:test";
import { Writable } from "node:stream";
import { SessionHost } from "../../src/server/session-host.ts";
import { serveStdio } from "../../src/server/serve-stdio.ts";
import { hostFactory, type HostFactory } from "../support/host-factory.ts";

let f: HostFactory | undefined;
afterEach(() => f?.cleanup());

type Msg = { id?: number | null; method?: string; result?: Record<string, unknown>; error?: { code: number; message: string }; params?: Record<string, unknown> & { seq?: number; event?: { type: string } } };

/** stdout as a pipe whose reader can stop: while paused, writes past `highWaterMark` return false. */
function pipeOut(highWaterMark: number) {
  const got: string[] = [];
  let paused = false;
  const held: Array<() => void> = [];
  const out = new Writable({
    highWaterMark,
    decodeStrings: false,
    write(chunk: string | Buffer, _enc, cb) {
      got.push(String(chunk));
      if (paused) held.push(cb);
      else cb();
    },
  });
  const messages = () => got.join("").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Msg);
  return {
    out,
    got,
    messages,
    pause: () => (paused = true),
    resume: () => {
      paused = false;
      for (const cb of held.splice(0)) cb();
    },
  };
}

/** stdin as a stream the test writes frames into. */
function input() {
  let ctl!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (ctl = c) });
  let id = 0;
  return {
    stream,
    send: (method: string, params: unknown = {}) => {
      ctl.enqueue(new TextEncoder().encode(`${JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params })}\n`));
      return id;
    },
    raw: (text: string) => ctl.enqueue(new TextEncoder().encode(text)),
    end: () => ctl.close(),
  };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await Bun.sleep(5);
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
}

const longAnswer = { text: "word ".repeat(3000), chunks: 600 };

describe("serve --stdio backpressure", () => {
  test("a reader that stops reading does not stall the turn; frames wait bounded and arrive whole and in order once it reads again", async () => {
    f = hostFactory(() => [longAnswer]);
    const host = new SessionHost(f);
    const pipe = pipeOut(4096);
    const inp = input();
    const served = serveStdio({ host, input: inp.stream, output: pipe.out, serverVersion: "t", maxQueuedBytes: 4 * 1024 * 1024 });
    inp.send("initialize", { protocolVersion: 1 });
    inp.send("session/new");
    await until(() => pipe.messages().some((m) => m.id === 2), "session/new");
    const sessionId = (pipe.messages().find((m) => m.id === 2)!.result!.session as { sessionId: string }).sessionId;
    pipe.pause();
    inp.send("session/prompt", { sessionId, text: "talk" });
    // The session runs its whole turn while nobody reads: its own event list has turn.completed.
    await until(() => f!.built[0]!.of("turn.completed").length === 1, "the turn to complete");
    const whilePaused = pipe.messages().filter((m) => m.method === "session/event").length;
    const total = f.built[0]!.events.length;
    expect(whilePaused).toBeLessThan(total - 100); // most of the turn waited in the queue, not in the stream
    pipe.resume();
    await until(() => pipe.messages().some((m) => m.params?.event?.type === "turn.completed"), "the client to catch up");
    const seqs = pipe.messages().filter((m) => m.method === "session/event").map((m) => m.params!.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(pipe.messages().find((m) => m.id === 3)!.result).toEqual({ queued: false });
    inp.end();
    expect(await served).toEqual({ dropped: false, outputLost: false });
    expect(pipe.messages().at(-1)!.params!.event!.type).toBe("session.ended");
  });

  test("past the queue bound the reader is dropped with server/closing slow_client; the turn still ends and the session is shut down", async () => {
    f = hostFactory(() => [longAnswer]);
    const host = new SessionHost(f);
    const pipe = pipeOut(1024);
    const inp = input();
    const logs: string[] = [];
    const served = serveStdio({ host, input: inp.stream, output: pipe.out, serverVersion: "t", maxQueuedBytes: 8 * 1024, warn: (l) => logs.push(l) });
    inp.send("initialize", { protocolVersion: 1 });
    inp.send("session/new");
    await until(() => pipe.messages().some((m) => m.id === 2), "session/new");
    const sessionId = (pipe.messages().find((m) => m.id === 2)!.result!.session as { sessionId: string }).sessionId;
    pipe.pause();
    inp.send("session/prompt", { sessionId, text: "talk" });
    // stdin stays open: the drop alone ends the server.
    expect(await served).toEqual({ dropped: true, outputLost: false });
    expect(host.size).toBe(0);
    const h = f.built[0]!;
    expect(h.of("turn.completed")).toHaveLength(1);
    expect(h.events.at(-1)!.type).toBe("session.ended");
    pipe.resume();
    const msgs = pipe.messages();
    const closing = msgs.at(-1)!;
    expect(closing).toMatchObject({ method: "server/closing", params: { reason: "slow_client" } });
    expect(String(closing.params!.message)).toContain("session/load");
    // What did arrive is a gap-free prefix: the client resumes from its last seq.
    const seqs = msgs.filter((m) => m.method === "session/event").map((m) => m.params!.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(seqs.length).toBeLessThan(h.events.length);
    expect(logs.some((l) => l.includes("too slow"))).toBe(true);
  });

  test("an output that breaks (EPIPE) mid-turn ends the server as on EOF: the turn ends, the session is shut down", async () => {
    f = hostFactory(() => [{ text: "tok ".repeat(400), chunks: 200, delayMs: 1 }]);
    const host = new SessionHost(f);
    let written = 0;
    const out = new Writable({
      decodeStrings: false,
      write(_chunk, _enc, cb) {
        written += 1;
        // The reader goes away once the turn is under way.
        if (written > 20) cb(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
        else cb();
      },
    });
    const inp = input();
    const warned: string[] = [];
    const served = serveStdio({ host, input: inp.stream, output: out, serverVersion: "t", warn: (l) => warned.push(l) });
    inp.send("initialize", { protocolVersion: 1 });
    inp.send("session/new");
    await until(() => f!.built.length === 1 && f!.built[0]!.of("session.started").length === 1, "the session");
    const sessionId = f.built[0]!.wired.recorder!.id;
    inp.send("session/prompt", { sessionId, text: "talk" });
    expect(await served).toEqual({ dropped: false, outputLost: true });
    expect(host.size).toBe(0);
    const h = f.built[0]!;
    expect(h.of("turn.completed")).toHaveLength(1);
    expect(h.events.at(-1)!.type).toBe("session.ended");
    expect(warned.join("\n")).toContain("closed its output");
  });

  test("a frame over the per-frame cap is answered -32004 (id null) and skipped; the next request is served", async () => {
    f = hostFactory(() => []);
    const host = new SessionHost(f);
    const pipe = pipeOut(1 << 20);
    const inp = input();
    const served = serveStdio({ host, input: inp.stream, output: pipe.out, serverVersion: "t", maxFrameBytes: 1024 });
    inp.send("initialize", { protocolVersion: 1 });
    inp.raw(`${JSON.stringify({ jsonrpc: "2.0", id: 77, method: "session/prompt", params: { sessionId: "x", text: "y".repeat(5000) } })}\n`);
    const next = inp.send("session/list");
    await until(() => pipe.messages().some((m) => m.id === next), "the request after the big one");
    const errs = pipe.messages().filter((m) => m.error);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ id: null, error: { code: -32004 } });
    expect(pipe.messages().some((m) => m.id === 77)).toBe(false);
    inp.end();
    await served;
  });
});
