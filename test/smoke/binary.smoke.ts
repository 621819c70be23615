// Smoke test of the compiled binary (run by .ci/run after `npm run build`): copied to a temp dir with no
// node_modules, it prints its version, answers a one-shot from a fake Ollama server, and starts and quits
// the TUI in tmux with the terminal restored.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192, capabilities: ["completion"] }], defaultReply: { text: "Smoke answer: 42.", chunkCount: 5 } });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

describe("compiled binary", () => {
  test("--version prints the package version and a commit", async () => {
    const r = await run(b, ["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(new RegExp(`^${pkg.version.replaceAll(".", "\\.")} \\([0-9a-f]{7,}|unknown\\)$`));
  });

  test("a one-shot streams the answer from Ollama to stdout", async () => {
    const r = await run(b, ["-p", "what is the answer?"], { OLLAMA_HOST: fake.url });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Smoke answer: 42.\n");
    expect(r.stderr).toContain("qwen3:8b");
    const sent = fake.chatRequests().at(-1)!;
    expect(JSON.stringify(sent.messages)).toContain("what is the answer?");
  });

  test("piped stdin is appended to the prompt", async () => {
    const r = await run(b, ["-p", "review this", "--model", "qwen3:8b"], { OLLAMA_HOST: fake.url }, "diff --git a/x b/x\n+added line\n");
    expect(r.code).toBe(0);
    const sent = JSON.stringify(fake.chatRequests().at(-1)!.messages);
    expect(sent).toContain("review this");
    expect(sent).toContain("+added line");
  });

  test("exit codes: 1 when Ollama is down, 2 on bad usage", async () => {
    const down = await run(b, ["-p", "hi"], { OLLAMA_HOST: "http://127.0.0.1:9" });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("http://127.0.0.1:9");
    expect(down.stderr).toContain("ollama serve");
    const bad = await run(b, ["--bogus-flag"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("bogus");
  });

  test.skipIf(!hasTmux())("the TUI starts, answers, and quits with Ctrl+C twice, restoring the terminal", async () => {
    const marker = join(b.dir, "tui-exit");
    const tmux = new Tmux(join(b.dir, "tmux.sock"), paneCommand(b, "", { env: { OLLAMA_HOST: fake.url }, after: `echo $? > '${marker}'; sleep 30` }));
    try {
      await tmux.waitFor((s) => s.includes("qwen3:8b"));
      expect(tmux.display("#{alternate_on}")).toBe("1");
      tmux.sendLiteral("say something");
      tmux.send("Enter");
      await tmux.waitFor((s) => s.includes("Smoke answer: 42."));
      tmux.send("C-c");
      await Bun.sleep(150);
      tmux.send("C-c");
      const end = Date.now() + 5000;
      while (!existsSync(marker) && Date.now() < end) await Bun.sleep(50);
      expect(readFileSync(marker, "utf8").trim()).toBe("0");
      expect(tmux.display("#{alternate_on}")).toBe("0");
      expect(tmux.display("#{cursor_flag}")).toBe("1");
      expect(tmux.display("#{mouse_any_flag}")).toBe("0");
      // The alternate screen is gone: the shell's screen is back, without the TUI's frame.
      expect(tmux.capture()).not.toContain("Ask anything");
    } finally {
      tmux.kill();
    }
  });
});
