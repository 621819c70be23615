import { describe, expect, test } from "bun:test";
import { readPipedStdin } from "../../src/cli/read-stdin.ts";

/** A stream fed by the test: `push` chunks, `end` to close; never closed = an open, silent pipe. */
function pipe() {
  let ctrl!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (ctrl = c) });
  return { stream, push: (s: string) => ctrl.enqueue(new TextEncoder().encode(s)), end: () => ctrl.close() };
}

describe("readPipedStdin", () => {
  test("reads everything to EOF", async () => {
    const p = pipe();
    const r = readPipedStdin(p.stream, { firstByteTimeoutMs: 1000 });
    p.push("diff --git a/x b/x\n");
    p.push("+line\n");
    p.end();
    expect(await r).toBe("diff --git a/x b/x\n+line\n");
  });

  test("an open pipe that never writes: gives up after the first-byte wait and says so", async () => {
    const p = pipe();
    let told = 0;
    expect(await readPipedStdin(p.stream, { firstByteTimeoutMs: 20, onTimeout: () => told++ })).toBe("");
    expect(told).toBe(1);
  });

  test("once data started, a slow writer is read to the end (the wait only covers the first byte)", async () => {
    const p = pipe();
    const r = readPipedStdin(p.stream, { firstByteTimeoutMs: 30 });
    p.push("a");
    await Bun.sleep(80);
    p.push("b");
    p.end();
    expect(await r).toBe("ab");
  });

  test("a multi-byte character split across chunks survives", async () => {
    let ctrl!: ReadableStreamDefaultController<Uint8Array>;
    const stream = new ReadableStream<Uint8Array>({ start: (c) => void (ctrl = c) });
    const r = readPipedStdin(stream);
    const bytes = new TextEncoder().encode("é!");
    ctrl.enqueue(bytes.slice(0, 1));
    ctrl.enqueue(bytes.slice(1));
    ctrl.close();
    expect(await r).toBe("é!");
  });

  test("the real process boundary: a child whose stdin stays open still answers", async () => {
    const script = `import { readPipedStdin } from ${JSON.stringify(`${import.meta.dir}/../../src/cli/read-stdin.ts`)};
const t = await readPipedStdin(Bun.stdin.stream(), { firstByteTimeoutMs: 100, onTimeout: () => process.stderr.write("timeout\\n") });
process.stdout.write("got:" + JSON.stringify(t));
process.exit(0);`;
    const child = Bun.spawn([process.execPath, "-e", script], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
    await child.exited;
    child.stdin.end();
    expect(out).toBe('got:""');
    expect(err).toBe("timeout\n");
  });
});
