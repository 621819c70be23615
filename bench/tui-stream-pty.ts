/**
 * The terminal side of bench/tui-stream.ts: the compiled binary (dist/chatcli, or CHATCLI_BINARY) in a real tmux
 * pane, full screen, against the fake Ollama server streaming the long answer. tmux `pipe-pane` copies every byte
 * the binary writes to its terminal into a file, so the byte count is what a terminal (or an SSH link) receives.
 * Measured from the prompt's Enter until the last line is on screen, then 1 s more (trailing frames count too):
 *  - terminal bytes, synchronized-update blocks (DEC 2026) = frames, scroll-region moves (DECSTBM);
 *  - CPU (utime+stime of every thread, /proc/<pid>/stat) and peak RSS (VmHWM) of the binary;
 *  - last line lag: the fake server's last chunk → `capture-pane` shows the final line (polled every 5 ms);
 *  - typing echo: a key sent every 250 ms while streaming → the prompt row shows it (polled every 2 ms).
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama } from "../test/support/fake-ollama.ts";
import { isolatedBinary, Tmux } from "../test/support/binary.ts";
import { benchAnswer } from "./bench-answer.ts";

const CLK_TCK = 100;

export interface PtyResult {
  bytes: number;
  frames: number;
  scrollMoves: number;
  cpuS: number;
  peakRssMB: number;
  streamS: number;
  lastLineS: number;
  echoMs: number[];
  textBytes: number;
}

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(f[11]) + Number(f[12]);
}

function hwmMB(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

function count(hay: Buffer, needle: string): number {
  const n = Buffer.from(needle);
  let c = 0;
  for (let i = hay.indexOf(n); i >= 0; i = hay.indexOf(n, i + n.length)) c++;
  return c;
}

export async function ptyPhase(o: { rate: number; lines?: number; chunks?: number; cols?: number; rows?: number; env?: Record<string, string>; probeEcho?: boolean }): Promise<PtyResult> {
  const lines = o.lines ?? 5000;
  const chunks = o.chunks ?? 20_000;
  const text = benchAnswer(lines);
  const final = `FINAL-LINE-${lines}`;
  let lastChunkAt = 0;
  const fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 262_144, capabilities: ["completion"] }] });
  fake.enqueue({ text, chunkCount: chunks, ...(o.rate > 0 ? { chunksPerSecond: o.rate } : {}), onLastChunk: (t) => (lastChunkAt = t) });
  const b = isolatedBinary();
  const out = join(b.home, "..", "pty.bin");
  const envs = Object.entries({ ...b.env, OLLAMA_HOST: fake.url, ...o.env }).map(([k, v]) => `${k}='${v}'`).join(" ");
  const t = new Tmux(join(b.home, "..", "bench.sock"), `cd '${b.dir}' && exec env ${envs} '${b.bin}' --model qwen3:8b`, o.cols ?? 160, o.rows ?? 45);
  try {
    await t.waitFor((s) => s.includes("Ask anything") && s.includes("qwen3:8b"), 15_000);
    const pid = Number(t.display("#{pane_pid}"));
    Bun.spawnSync(["tmux", "-S", t.socket, "pipe-pane", "-t", t.name, "-o", `cat > '${out}'`]);
    await Bun.sleep(300);
    t.sendLiteral("write it");
    t.send("Enter");
    const c0 = cpuTicks(pid);
    const t0 = performance.now();
    // Echo probes while the answer streams: one key every 250 ms, then poll the prompt row until it shows.
    const echoMs: number[] = [];
    let typed = "";
    const promptRow = (s: string) => s.split("\n").find((l) => l.includes("› ")) ?? "";
    while (o.probeEcho !== false && !lastChunkAt && performance.now() - t0 < 60_000) {
      await Bun.sleep(250);
      if (lastChunkAt) break;
      const ch = String.fromCharCode(97 + (echoMs.length % 26));
      typed += ch;
      const k0 = performance.now();
      t.sendLiteral(ch);
      while (performance.now() - k0 < 2000 && !promptRow(t.capture()).includes(typed.slice(-12))) await Bun.sleep(2);
      echoMs.push(performance.now() - k0);
    }
    while (!lastChunkAt && performance.now() - t0 < 60_000) await Bun.sleep(5);
    let lastLineS = Infinity;
    while (performance.now() - lastChunkAt < 10_000) {
      if (t.capture().includes(final)) {
        lastLineS = (performance.now() - lastChunkAt) / 1000;
        break;
      }
      await Bun.sleep(5);
    }
    const cpuS = (cpuTicks(pid) - c0) / CLK_TCK;
    await Bun.sleep(1000);
    const peakRssMB = hwmMB(pid);
    Bun.spawnSync(["tmux", "-S", t.socket, "pipe-pane", "-t", t.name]);
    await Bun.sleep(100);
    const bytes = statSync(out).size;
    const buf = readFileSync(out);
    if (process.env.PTY_KEEP) Bun.write(process.env.PTY_KEEP, buf);
    return {
      bytes,
      frames: count(buf, "\x1b[?2026h"),
      scrollMoves: count(buf, "\x1b[r"),
      cpuS,
      peakRssMB,
      streamS: (lastChunkAt - t0) / 1000,
      lastLineS,
      echoMs,
      textBytes: Buffer.byteLength(text),
    };
  } finally {
    t.kill();
    fake.stop();
    b.cleanup();
  }
}
