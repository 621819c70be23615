// The UI language and the kept prompt in the compiled binary, in a real tmux pane: CHATCLI_LANG=pt-BR and
// LANG=pt_BR.UTF-8 give the Portuguese TUI (placeholder, completion, status line); a turn that fails before any
// answer (Ollama answering 500) puts the typed prompt back into the input box with a notice.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, Tmux, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let slow: FakeOllama;
let failing: FakeOllama;
let n = 0;
const tmuxes: Tmux[] = [];
const models = [{ name: "qwen3:8b", contextLength: 8192, capabilities: ["completion"] }];

beforeAll(() => {
  b = isolatedBinary();
  slow = startFakeOllama({ models, defaultReply: { text: "Resposta lenta do modelo.", chunkCount: 40, chunkDelayMs: 100 } });
  failing = startFakeOllama({ models, defaultReply: { status: 500, errorBody: JSON.stringify({ error: "internal failure" }) } });
});
afterAll(() => {
  for (const t of tmuxes) t.kill();
  slow?.stop();
  failing?.stop();
  b?.cleanup();
});

function startTui(host: string, extraEnv: Record<string, string>): Tmux {
  const id = ++n;
  const t = new Tmux(join(b.dir, `tmux-i18n-${id}.sock`), paneCommand(b, "--model qwen3:8b", { env: { OLLAMA_HOST: host, ...extraEnv } }));
  tmuxes.push(t);
  return t;
}

test.skipIf(!hasTmux())("CHATCLI_LANG=pt-BR: placeholder, slash completion and running status line in Portuguese", async () => {
  const t = startTui(slow.url, { CHATCLI_LANG: "pt-BR" });
  const idle = await t.waitFor((s) => s.includes("Pergunte qualquer coisa") && s.includes("qwen3:8b"));
  expect(idle).toContain("Pergunte qualquer coisa · / para comandos · @ para arquivos");
  expect(idle).not.toContain("Ask anything");
  t.sendLiteral("/cl");
  expect(await t.waitFor((s) => s.includes("Limpa a conversa"))).toContain("/clear  Limpa a conversa");
  t.send("C-u");
  await t.waitFor((s) => !s.includes("Limpa a conversa"));
  t.sendLiteral("conte uma história");
  t.send("Enter");
  expect(await t.waitFor((s) => s.includes("esc para interromper"))).toContain("esc para interromper");
  t.send("Escape");
  expect(await t.waitFor((s) => s.includes("Interrompido."))).toContain("· Interrompido.");
  t.send("C-c");
  expect(await t.waitFor((s) => s.includes("de novo para sair"))).toContain("Pressione Ctrl+C de novo para sair");
  t.send("C-c");
});

test.skipIf(!hasTmux())("LANG=pt_BR.UTF-8 is picked up without CHATCLI_LANG; CHATCLI_LANG=en wins over it", async () => {
  const pt = startTui(slow.url, { LANG: "pt_BR.UTF-8" });
  expect(await pt.waitFor((s) => s.includes("Pergunte qualquer coisa") && s.includes("qwen3:8b"))).not.toContain("Ask anything");
  pt.send("C-d");
  const en = startTui(slow.url, { LANG: "pt_BR.UTF-8", CHATCLI_LANG: "en" });
  expect(await en.waitFor((s) => s.includes("Ask anything") && s.includes("qwen3:8b"))).not.toContain("Pergunte");
  en.send("C-d");
});

test.skipIf(!hasTmux())("a prompt whose turn fails before any answer (Ollama 500) is put back into the input box", async () => {
  const t = startTui(failing.url, { INITIAL_BACKOFF: "0.01", MAX_RETRIES: "1" });
  await t.waitFor((s) => s.includes("Ask anything") && s.includes("qwen3:8b"));
  t.sendLiteral("please keep this prompt");
  t.send("Enter");
  const s = await t.waitFor((x) => x.includes("your prompt is back"));
  expect(s).toContain("The request failed before any answer; your prompt is back in the input box.");
  expect(s).toMatch(/│› please keep this prompt\s*│/);
  expect(s).toMatch(/✗ .*internal failure \(HTTP 500\)/);
  // Enter sends it again as it was: a second chat request with the same text.
  const before = failing.chatRequests().length;
  t.send("Enter");
  await t.waitFor(() => failing.chatRequests().length > before);
  const last = failing.chatRequests().at(-1) as { messages: Array<{ role: string; content: string }> };
  expect(last.messages.filter((m) => m.role === "user").at(-1)?.content).toContain("please keep this prompt");
  t.send("C-c");
  t.send("C-c");
});

test.skipIf(!hasTmux())("pt-BR: the kept-prompt notice is in Portuguese", async () => {
  const t = startTui(failing.url, { INITIAL_BACKOFF: "0.01", MAX_RETRIES: "1", CHATCLI_LANG: "pt-BR" });
  await t.waitFor((s) => s.includes("Pergunte qualquer coisa") && s.includes("qwen3:8b"));
  t.sendLiteral("não perca isto");
  t.send("Enter");
  const s = await t.waitFor((x) => x.includes("seu prompt voltou"));
  expect(s).toContain("seu prompt voltou para a caixa de entrada");
  expect(s).toMatch(/│› não perca isto\s*│/);
  expect(s).toMatch(/✗ .*internal failure \(HTTP 500\)/);
  t.send("C-d");
});
