import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../../support/fake-ollama.ts";

// The real entry point as a child process: the language comes from its environment, not from this process.
const MAIN = join(import.meta.dir, "../../../src/main.ts");
let fake: FakeOllama;
let dir: string;

beforeAll(() => {
  fake = startFakeOllama({ defaultReply: { status: 500, errorBody: JSON.stringify({ error: "boom" }) } });
  dir = mkdtempSync(join(tmpdir(), "headless-lang-"));
});
afterAll(() => {
  fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function run(env: Record<string, string>) {
  // Async: the fake server lives in this process and must keep answering while the child runs.
  const p = Bun.spawn([process.execPath, MAIN, "-p", "oi", "--model", "qwen3:8b"], {
    cwd: dir,
    stdin: "ignore",
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: dir,
      CHATCLI_HOME: join(dir, ".chatcli"),
      LLM_PROVIDER: "OLLAMA",
      OLLAMA_HOST: fake.url,
      INITIAL_BACKOFF: "0.01",
      MAX_RETRIES: "2",
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stderr, stdout };
}

test("CHATCLI_LANG=pt-BR: the retry line and the final error on stderr are in Portuguese", async () => {
  const r = await run({ CHATCLI_LANG: "pt-BR", LANG: "C.UTF-8" });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain("nova tentativa em 0.0s (tentativa 1)");
  expect(r.stderr).toContain("Erro de OLLAMA:");
  expect(r.stderr).not.toContain("retrying in");
});

test("LANG=pt_BR.UTF-8 is picked up when CHATCLI_LANG is unset; CHATCLI_LANG=en wins over it", async () => {
  expect((await run({ LANG: "pt_BR.UTF-8" })).stderr).toContain("nova tentativa em");
  const en = await run({ LANG: "pt_BR.UTF-8", CHATCLI_LANG: "en" });
  expect(en.stderr).toContain("retrying in 0.0s (attempt 1)");
  expect(en.stderr).toContain("OLLAMA error:");
});

test("usage errors are translated too (language read before argument parsing)", () => {
  const p = Bun.spawnSync([process.execPath, MAIN, "--no-such-flag"], { cwd: dir, stdin: "ignore", env: { PATH: process.env.PATH ?? "", HOME: dir, CHATCLI_HOME: join(dir, ".chatcli"), CHATCLI_LANG: "pt-BR" } });
  expect(p.exitCode).toBe(2);
  expect(p.stderr.toString()).toContain("Execute chatcli --help para ver o uso.");
});
