// Issue 15 item 10 in the compiled binary: with CHATCLI_LANG=pt-BR, what a person reads is Portuguese — `--help`,
// a usage error, an unknown slash command and /stats in --no-tui, a denial in -p, and a bad settings file.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;
let env: Record<string, string>;

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192, capabilities: ["completion", "tools"] }], defaultReply: { text: "Pronto." } });
  env = { OLLAMA_HOST: fake.url, CHATCLI_LANG: "pt-BR" };
});
afterAll(() => {
  fake?.stop();
  b?.cleanup();
});

test("--help is Portuguese: headings, types, descriptions", async () => {
  const r = await run(b, ["--help"], env);
  expect(r.code).toBe(0);
  for (const s of ["Comandos:", "Opções:", "Mostra a ajuda", "Mostra a versão", "[booleano]", "[padrão: false]", "Retoma uma sessão salva"]) expect(r.stdout).toContain(s);
  for (const s of ["Options:", "Commands:", "Show help", "[boolean]", "default:", "Resume a saved session"]) expect(r.stdout).not.toContain(s);
});

test("usage errors are Portuguese (yargs' own and ours), exit 2", async () => {
  const unknown = await run(b, ["--bogus"], env);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain("Argumento desconhecido: bogus");
  expect(unknown.stderr).toContain("Execute chatcli --help para ver o uso.");
  const choice = await run(b, ["--permission-mode", "foo", "-p", "oi"], env);
  expect(choice.code).toBe(2);
  expect(choice.stderr).toContain("Valores inválidos:");
  expect(choice.stderr).not.toMatch(/Invalid values|Given:|Choices:/);
  const turns = await run(b, ["-p", "oi", "--max-turns", "0"], env);
  expect(turns.stderr).toContain("--max-turns deve ser um inteiro positivo");
});

test("--no-tui: an unknown slash command and /stats answer in Portuguese and never reach the model", async () => {
  const before = fake.chatRequests().length;
  const r = await run(b, ["--no-tui", "--model", "qwen3:8b"], env, "/foo\n/stats\n/exit\n");
  expect(r.stdout).toContain("Comando desconhecido /foo. Digite /help para ver a lista.");
  expect(r.stdout).toContain("Sessão: 0 chamadas");
  expect(r.stdout).toMatch(/Contexto: \S+ \/ 8\.2k tokens/);
  expect(r.stdout).not.toMatch(/Unknown command|Session: |By model|cost n\/a/);
  expect(fake.chatRequests().length).toBe(before);
});

test("-p: denials are one Portuguese line, with the policy's reason translated; the model still gets English", async () => {
  fake.enqueue({ toolCalls: [{ name: "write", arguments: { path: "app.txt", content: "oi" } }], chunks: [] }, { text: "Não consegui." });
  const asked = await run(b, ["-p", "escreva app.txt", "--model", "qwen3:8b"], env);
  expect(asked.stderr).toContain('permissão necessária para "app.txt": negada');
  expect(asked.stderr).toContain("✗ Negado: write app.txt");
  expect(asked.stderr).not.toContain("Permission denied");

  fake.enqueue({ toolCalls: [{ name: "exec", arguments: { command: "rm -rf /" } }], chunks: [] }, { text: "Não consegui." });
  const blocked = await run(b, ["-p", "apague tudo", "--model", "qwen3:8b"], env);
  expect(blocked.stderr).toContain("✗ Bloqueado pela política de permissões: exec rm -rf / (comando perigoso bloqueado (remoção recursiva de /);");
  expect(blocked.stderr).not.toMatch(/Permission denied|dangerous command blocked/);
  const toModel = JSON.stringify(fake.chatRequests().at(-1));
  expect(toModel).toContain("Permission denied: dangerous command blocked");
});

test("a bad settings file: the warning and the error are Portuguese", async () => {
  const dir = join(b.home, ".chatcli");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "settings.json"), '{"bogus": 1}');
  const warned = await run(b, ["-p", "oi", "--model", "qwen3:8b"], env);
  expect(warned.stderr).toContain('chatcli: aviso:');
  expect(warned.stderr).toContain('chave desconhecida "bogus" ignorada.');
  writeFileSync(join(dir, "settings.json"), '{"permissionMode": 3}');
  const bad = await run(b, ["-p", "oi", "--model", "qwen3:8b"], env);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain('configurações inválidas em');
  expect(bad.stderr).toContain('chave "permissionMode": esperado um de:');
  writeFileSync(join(dir, "settings.json"), "{ not json");
  const json = await run(b, ["-p", "oi", "--model", "qwen3:8b"], env);
  expect(json.stderr).toContain("não é um JSON válido");
  expect(json.stderr).not.toMatch(/is not valid JSON|invalid settings|unknown key/);
  rmSync(join(dir, "settings.json"));
});

test("chatcli providers: headings and each provider's state in Portuguese", async () => {
  const r = await run(b, ["providers"], env);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/PROVEDOR\s+NOME\s+MODELO PADRÃO\s+ESTADO/);
  expect(r.stdout).toContain(`Ollama respondendo em ${fake.url.replace(/\/+$/, "")}`);
  expect(r.stdout).toContain("defina OPENAI_API_KEY");
  expect(r.stdout).not.toMatch(/DEFAULT MODEL|answering at|not reachable|no key needed/);
});
