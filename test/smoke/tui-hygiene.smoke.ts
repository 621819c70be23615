// Terminal hygiene of the compiled binary in a real tmux pane (issue 6): every exit path — /exit, Ctrl+C twice,
// Ctrl+D on an empty prompt, SIGTERM, SIGHUP, an uncaught error — leaves the terminal restored (alternate
// screen off, cursor visible, mouse tracking off) with run-tui's exit code; a crash prints the error and the log
// path; resizing reflows the frame; console output never reaches the screen.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, Tmux, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;
let n = 0;

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192, capabilities: ["completion"] }], defaultReply: { text: "Hygiene answer.", chunkCount: 3 } });
});
afterAll(() => {
  fake?.stop();
  b?.cleanup();
});

interface Run {
  tmux: Tmux;
  /** Resolves with the exit code the shell saw. */
  exitCode(timeoutMs?: number): Promise<string>;
  /** Pid of the chatcli process (the shell's child). */
  pid(): number;
}

async function startTui(extraEnv: Record<string, string> = {}): Promise<Run> {
  const id = ++n;
  const marker = join(b.dir, `exit-${id}`);
  const tmux = new Tmux(join(b.dir, `tmux-${id}.sock`), paneCommand(b, "", { env: { OLLAMA_HOST: fake.url, ...extraEnv }, after: `echo $? > '${marker}'; sleep 30` }));
  await tmux.waitFor((s) => s.includes("Ask anything") && s.includes("qwen3:8b"));
  return {
    tmux,
    async exitCode(timeoutMs = 5000) {
      const end = Date.now() + timeoutMs;
      while (!existsSync(marker) && Date.now() < end) await Bun.sleep(25);
      return existsSync(marker) ? readFileSync(marker, "utf8").trim() : "still running";
    },
    pid() {
      const shell = tmux.display("#{pane_pid}");
      const children = readFileSync(`/proc/${shell}/task/${shell}/children`, "utf8").trim().split(/\s+/);
      return Number(children[0]);
    },
  };
}

function expectTuiActive(t: Tmux): void {
  expect(t.display("#{alternate_on}")).toBe("1");
  expect(t.display("#{mouse_any_flag}")).toBe("1");
}

function expectRestored(t: Tmux): void {
  expect(t.display("#{alternate_on}")).toBe("0");
  expect(t.display("#{cursor_flag}")).toBe("1");
  expect(t.display("#{mouse_any_flag}")).toBe("0");
  expect(t.display("#{mouse_button_flag}")).toBe("0");
  expect(t.display("#{mouse_sgr_flag}")).toBe("0");
}

describe.skipIf(!hasTmux())("TUI terminal hygiene (compiled binary in tmux)", () => {
  const exits: Array<[string, (r: Run) => Promise<void>, string]> = [
    ["/exit", async (r) => {
      r.tmux.sendLiteral("/exit");
      await r.tmux.waitFor((s) => s.includes("› /exit"));
      r.tmux.send("Enter");
    }, "0"],
    ["Ctrl+C twice", async (r) => {
      r.tmux.send("C-c");
      await r.tmux.waitFor((s) => s.includes("Ctrl+C again"));
      r.tmux.send("C-c");
    }, "0"],
    ["Ctrl+D on an empty prompt", async (r) => {
      r.tmux.send("C-d");
    }, "0"],
    ["SIGTERM", async (r) => {
      process.kill(r.pid(), "SIGTERM");
    }, "143"],
    ["SIGHUP", async (r) => {
      process.kill(r.pid(), "SIGHUP");
    }, "129"],
  ];
  for (const [name, act, code] of exits) {
    test(`${name} restores the terminal and exits ${code}`, async () => {
      const r = await startTui();
      try {
        expectTuiActive(r.tmux);
        await act(r);
        expect(await r.exitCode()).toBe(code);
        expectRestored(r.tmux);
      } finally {
        r.tmux.kill();
      }
    });
  }

  test("an uncaught error restores the terminal, prints the error and the log path, exits 1; console output goes to the log", async () => {
    const r = await startTui({ CHATCLI_TEST_CRASH_AFTER_MS: "700" });
    try {
      const live = r.tmux.capture();
      expect(live).not.toContain("CHATCLI-TEST-CONSOLE");
      expect(await r.exitCode()).toBe("1");
      expectRestored(r.tmux);
      const after = await r.tmux.waitFor((s) => s.includes("Details in"));
      expect(after).toContain("chatcli: test crash (CHATCLI_TEST_CRASH_AFTER_MS)");
      expect(after).not.toContain("CHATCLI-TEST-CONSOLE");
      const logs = join(b.env.CHATCLI_HOME!, "logs");
      const files = readdirSync(logs).map((f) => join(logs, f));
      const flat = after.replace(/\s*\n/g, "");
      expect(files.some((f) => flat.includes(`Details in ${f}`))).toBe(true);
      const text = files.map((f) => readFileSync(f, "utf8")).join("\n");
      expect(text).toContain("CHATCLI-TEST-CONSOLE-LOG");
      expect(text).toContain("CHATCLI-TEST-CONSOLE-ERROR");
      expect(text).toContain("test crash (CHATCLI_TEST_CRASH_AFTER_MS)");
    } finally {
      r.tmux.kill();
    }
  });

  test("resize reflows the frame without leftovers, and the answer survives it", async () => {
    const r = await startTui();
    try {
      r.tmux.sendLiteral("hello");
      r.tmux.send("Enter");
      await r.tmux.waitFor((s) => s.includes("Hygiene answer."));
      const resize = (x: number, y: number) =>
        Bun.spawnSync(["tmux", "-S", r.tmux.socket, "resize-window", "-t", r.tmux.name, "-x", String(x), "-y", String(y)]);
      for (const [w, h] of [[60, 20], [120, 35], [80, 24]] as const) {
        resize(w, h);
        const s = await r.tmux.waitFor((f) => {
          const lines = f.split("\n");
          return lines.some((l) => l.startsWith("╰") && l.trimEnd().length === w && l.trimEnd().endsWith("╯"));
        });
        const lines = s.split("\n");
        // One prompt box, drawn at the new width; nothing past the right edge; the answer still there.
        expect(lines.filter((l) => l.startsWith("╭")).length).toBe(1);
        expect(lines.filter((l) => l.startsWith("╰")).length).toBe(1);
        expect(Math.max(...lines.map((l) => l.trimEnd().length))).toBeLessThanOrEqual(w);
        expect(s).toContain("Hygiene answer.");
        expect(s).toContain("qwen3:8b");
      }
      r.tmux.send("C-d");
      expect(await r.exitCode()).toBe("0");
      expectRestored(r.tmux);
    } finally {
      r.tmux.kill();
    }
  });
});
