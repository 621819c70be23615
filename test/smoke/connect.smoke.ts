// `chatcli connect` (issue 22) as a person uses it: the compiled binary runs `chatcli serve` against the fake
// Ollama, and `chatcli connect` in tmux is the TUI over the server's WebSocket: the status line says where it is
// connected, a prompt streams, an approval is answered in the remote TUI (the file is written on the server),
// `connect --list` lists the session, the server is killed and restarted on the same port mid-session and the TUI
// reconnects (the session resumed from its saved history) and goes on. Plus the clear failures: nothing listening,
// a wrong token, a bad URL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";
import { hasOpenssl, makeKubePki } from "../support/kube-certs.ts";

let b: BinaryEnv;
let fake: FakeOllama;

beforeAll(() => {
  b = isolatedBinary();
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  fake = startFakeOllama({
    models: [
      { name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] },
      { name: "coder:7b", contextLength: 16384, capabilities: ["completion", "tools"] },
    ],
    replies: [
      { toolCalls: [{ name: "write", arguments: { path: "remote.txt", content: "written through connect\n" } }] },
      { text: "The file is written, streaming word by word.", chunkCount: 6, chunkDelayMs: 30 },
      { text: "Second answer after the restart.", chunkCount: 3 },
    ],
    defaultReply: { text: "Nothing more." },
  });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

/** `chatcli serve` on `port` (0: any free one); resolves with its URL from the one "listening on" line. */
async function startServer(port = 0, extra: string[] = [], ollama = fake): Promise<{ proc: Subprocess<"ignore", "pipe", "pipe">; url: string; port: number }> {
  const proc = Bun.spawn([b.bin, "serve", "--port", String(port), "--model", "qwen3:8b", ...extra], { cwd: b.dir, env: { ...b.env, OLLAMA_HOST: ollama.url }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const reader = proc.stderr.getReader();
  let text = "";
  const dec = new TextDecoder();
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const { done, value } = await reader.read();
    if (done) break;
    text += dec.decode(value, { stream: true });
    const m = /listening on (\S+)/.exec(text);
    if (m) {
      // Keep draining stderr so the server never blocks on a full pipe.
      void (async () => {
        for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return;
      })();
      const url = m[1]!;
      return { proc, url, port: Number(new URL(url).port) };
    }
  }
  proc.kill();
  throw new Error(`chatcli serve did not say where it listens:\n${text}`);
}

/** A TCP proxy in front of the server: `cutAll()` drops every connection mid-stream (a network drop), new ones go through. */
function startProxy(targetPort: number): { port: number; connections: number; cutAll(): void; stop(): void } {
  type Pair = { client: import("bun").Socket<Pair>; upstream?: import("bun").Socket<unknown>; pending: Uint8Array[] };
  const pairs = new Set<Pair>();
  const state = { connections: 0 };
  const listener = Bun.listen<Pair>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        state.connections++;
        const pair: Pair = { client, pending: [] };
        client.data = pair;
        pairs.add(pair);
        void Bun.connect({
          hostname: "127.0.0.1",
          port: targetPort,
          socket: {
            data: (_up, d) => void client.write(d),
            close: () => void client.end(),
            error: () => void client.end(),
          },
        }).then((up) => {
          pair.upstream = up;
          for (const d of pair.pending.splice(0)) up.write(d);
        });
      },
      data(client, d) {
        if (client.data.upstream) client.data.upstream.write(d);
        else client.data.pending.push(new Uint8Array(d));
      },
      close(client) {
        client.data.upstream?.end();
        pairs.delete(client.data);
      },
    },
  });
  return {
    port: listener.port,
    get connections() {
      return state.connections;
    },
    cutAll() {
      for (const p of [...pairs]) {
        p.upstream?.terminate();
        p.client.terminate();
        pairs.delete(p);
      }
    },
    stop: () => listener.stop(true),
  };
}

describe("chatcli connect", () => {
  test("failures are clear: nothing listening (exit 1), a wrong token (exit 1), a bad URL (exit 2)", async () => {
    const nobody = await run(b, ["connect", "http://127.0.0.1:1", "--list"]);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain("chatcli serve");
    const bad = await run(b, ["connect", "ftp://x", "--list"]);
    expect(bad.code).toBe(2);
    const server = await startServer();
    try {
      const wrong = await run(b, ["connect", server.url, "--list", "--token", "not-the-token"]);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain("401");
      expect(wrong.stderr).not.toContain("not-the-token");
      // The local token file is found without any flag.
      const ok = await run(b, ["connect", server.url, "--list"]);
      expect(ok.stderr).toBe("");
      expect(ok.code).toBe(0);
    } finally {
      server.proc.kill("SIGTERM");
      await server.proc.exited;
    }
  }, 60_000);

  test.skipIf(!hasOpenssl())("https with a self-signed certificate: refused until --ca-cert trusts it or --insecure-tls is given", async () => {
    const pki = makeKubePki();
    const files = { ca: join(b.dir, "..", "ca.crt"), cert: join(b.dir, "..", "server.crt"), key: join(b.dir, "..", "server.key") };
    writeFileSync(files.ca, pki.caPem);
    writeFileSync(files.cert, pki.certPem);
    writeFileSync(files.key, pki.keyPem);
    const server = await startServer(0, ["--tls-cert", files.cert, "--tls-key", files.key]);
    try {
      expect(server.url.startsWith("https://")).toBe(true);
      const untrusted = await run(b, ["connect", server.url, "--list"]);
      expect(untrusted.code).toBe(1);
      expect(untrusted.stderr).toContain("--ca-cert");
      const trusted = await run(b, ["connect", server.url, "--list", "--ca-cert", files.ca]);
      expect(trusted.stderr).toBe("");
      expect(trusted.code).toBe(0);
      const insecure = await run(b, ["connect", server.url, "--list", "--insecure-tls"]);
      expect(insecure.code).toBe(0);
    } finally {
      server.proc.kill("SIGTERM");
      await server.proc.exited;
    }
  }, 60_000);

  test.skipIf(!hasTmux())("the remote TUI: streaming, an approval, --list, and a reconnect after the server restarts", async () => {
    let server = await startServer();
    const where = `127.0.0.1:${server.port}`;
    const tmux = new Tmux(join(b.dir, "tmux.sock"), paneCommand(b, `connect ${server.url}`), 110, 32);
    try {
      await tmux.waitFor((s) => s.includes(`connected to ${where}`), 15_000);
      tmux.sendLiteral("please write remote.txt");
      tmux.send("Enter");
      const ask = await tmux.waitFor((s) => s.includes("[y]") && s.includes("remote.txt"), 15_000);
      expect(ask).toContain("written through connect");
      expect(existsSync(join(b.dir, "remote.txt"))).toBe(false);
      await Bun.sleep(400); // the approval box ignores keys for 250 ms after it is drawn
      tmux.send("y");
      await tmux.waitFor((s) => s.includes("The file is written, streaming word by word."), 15_000);
      expect(readFileSync(join(b.dir, "remote.txt"), "utf8")).toBe("written through connect\n");

      // /model lists the server's models (models/list); /model NAME switches on the server.
      tmux.sendLiteral("/model");
      tmux.send("Enter");
      await tmux.waitFor((s) => s.includes("OLLAMA:coder:7b") && s.includes("OLLAMA:qwen3:8b"), 15_000);
      tmux.send("Escape");
      await Bun.sleep(200);
      tmux.sendLiteral("/model coder:7b");
      tmux.send("Enter");
      await tmux.waitFor((s) => (s.split("\n").findLast((l) => l.includes("connected to")) ?? "").includes("coder:7b"), 15_000);
      // Esc Esc opens the rewind menu over the server's checkpoints (session/checkpoints).
      tmux.send("Escape");
      await Bun.sleep(120);
      tmux.send("Escape");
      const menu = await tmux.waitFor((s) => s.includes("Select a checkpoint"), 15_000);
      expect(menu.split("\n").some((l) => l.includes("please write remote.txt") && l.includes("+1 file"))).toBe(true);
      tmux.send("Escape");
      await Bun.sleep(200);

      const list = await run(b, ["connect", server.url, "--list"]);
      expect(list.code).toBe(0);
      const row = list.stdout.split("\n").find((l) => l.includes("please write remote.txt"));
      expect(row).toBeDefined();
      expect(row).toContain("live");
      expect(row).toContain(b.dir);
      const sessionId = row!.split(/\s+/)[0]!;

      // The server dies mid-session; the TUI says so and keeps trying; a new server on the same port resumes it.
      server.proc.kill("SIGKILL");
      await server.proc.exited;
      await tmux.waitFor((s) => s.includes("reconnecting…"), 15_000);
      server = await startServer(Number(where.split(":")[1]));
      const back = await tmux.waitFor((s) => s.includes(`connected to ${where}`) && s.includes("resumed"), 20_000);
      expect(back).toContain("please write remote.txt");
      tmux.sendLiteral("and again");
      tmux.send("Enter");
      await tmux.waitFor((s) => s.includes("Second answer after the restart."), 15_000);
      const after = await run(b, ["connect", server.url, "--list"]);
      expect(after.stdout.split("\n").find((l) => l.startsWith(sessionId))).toContain("live");
      tmux.send("C-c");
      await Bun.sleep(150);
      tmux.send("C-c");
      await Bun.sleep(300);
    } finally {
      tmux.kill();
      server.proc.kill("SIGTERM");
      await server.proc.exited;
    }
  }, 120_000);

  test.skipIf(!hasTmux())("a network drop mid-answer: the TUI reconnects, the answer is whole (nothing lost or repeated), type-ahead and rewind work", async () => {
    const words = Array.from({ length: 20 }, (_, i) => `w${String(i + 1).padStart(2, "0")}`);
    const slow = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] }], replies: [{ chunks: words.map((w) => `${w} `), chunkDelayMs: 120 }], defaultReply: { text: "Stopped here as asked." } });
    const server = await startServer(0, [], slow);
    const proxy = startProxy(server.port);
    const token = readFileSync(join(b.home, ".chatcli", "server", `${server.port}.token`), "utf8").trim();
    const tmux = new Tmux(join(b.dir, "tmux-drop.sock"), paneCommand(b, `connect http://127.0.0.1:${proxy.port} --token ${token}`), 110, 32);
    try {
      await tmux.waitFor((s) => s.includes(`connected to 127.0.0.1:${proxy.port}`), 15_000);
      tmux.sendLiteral("count to twenty");
      tmux.send("Enter");
      await tmux.waitFor((s) => s.includes("w02"), 15_000);
      // Type-ahead: a second prompt while the answer streams waits on the server, across the drop.
      tmux.sendLiteral("then stop");
      tmux.send("Enter");
      await tmux.waitFor((s) => s.includes("1 queued"), 10_000);
      proxy.cutAll();
      const done = await tmux.waitFor((s) => s.includes("Stopped here as asked.") && s.includes(`connected to 127.0.0.1:${proxy.port}`) && !s.includes("esc to interrupt"), 20_000);
      expect(proxy.connections).toBeGreaterThanOrEqual(2);
      const flat = done.replace(/\s+/g, " ");
      expect(flat).toContain(words.join(" "));
      expect(flat.split("w07").length).toBe(2); // once
      // Rewind remotely: back to before "then stop" (conversation and code): its answer leaves the screen and the
      // prompt holds it again.
      tmux.send("Escape");
      await Bun.sleep(120);
      tmux.send("Escape");
      const menu = await tmux.waitFor((s) => s.includes("Select a checkpoint"), 10_000);
      const rows = menu.split("\n").filter((l) => / msgs? /.test(l));
      const at = rows.findIndex((l) => l.includes("then stop"));
      expect(at).toBeGreaterThanOrEqual(0);
      for (let i = 0; i < at; i++) tmux.send("Down");
      tmux.send("Enter");
      await tmux.waitFor((s) => s.includes("Restore conversation and code"), 10_000);
      tmux.send("Enter");
      const after = await tmux.waitFor((s) => s.includes("Rewound") && !s.includes("Stopped here as asked."), 10_000);
      expect(after).toContain("› then stop");
      expect(after).toContain("w20");
      tmux.send("C-c");
      await Bun.sleep(150);
      tmux.send("C-c");
      await Bun.sleep(300);
    } finally {
      tmux.kill();
      proxy.stop();
      server.proc.kill("SIGTERM");
      await server.proc.exited;
      slow.stop();
    }
  }, 90_000);
});
