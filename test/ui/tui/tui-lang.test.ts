import { afterEach, expect, test } from "bun:test";
import type { TestRendererSetup } from "@opentui/core/testing";
import { setLang } from "../../../src/i18n/i18n.ts";
import { FakeSession, streamAnswer } from "./fake-session.ts";
import { useTuiHarness } from "./tui-harness.ts";

// setLang is process-global and bun runs every test file in one process: each test sets its language and
// afterEach puts English back, so no other file sees pt-BR whatever the order.
const tui = useTuiHarness("tui-lang-");
const frame = tui.frame;
let setup: TestRendererSetup;
let session: FakeSession;

async function start() {
  session = new FakeSession();
  ({ setup } = await tui.start({ session }, { width: 100 }));
}

afterEach(() => {
  setLang("en");
});

test("pt-BR: placeholder, running status, queue and approval box are in Portuguese", async () => {
  setLang("pt-BR");
  await start();
  expect(await frame((f) => f.includes("Pergunte qualquer coisa"))).toContain("Pergunte qualquer coisa · / para comandos · @ para arquivos");

  session.emit({ type: "turn.started", turnId: "t1", input: "oi" });
  session.emit({ type: "queue.updated", items: ["depois"] });
  streamAnswer(session, "m1", "Resposta parcial");
  const running = await frame((f) => f.includes("esc para interromper"));
  expect(running).toContain("esc para interromper");
  expect(running).toContain("▼ 1 na fila");
  expect(running).not.toContain("esc to interrupt");

  session.emit({ type: "approval.requested", requestId: "r1", tool: "exec", action: "rm -rf build", reason: "fora da lista" });
  const box = await frame((f) => f.includes("Permissão necessária"));
  expect(box).toContain("Permissão necessária");
  expect(box).toContain("[y] uma vez");
  expect(box).toContain("[a] sempre");
  expect(box).toContain("[n] negar");
  expect(box).toContain("[N] negar sempre");
  expect(box).not.toContain("Permission required");
});

test("pt-BR: slash completion and /help use the translated descriptions; Ctrl+C hint too", async () => {
  setLang("pt-BR");
  await start();
  await setup.mockInput.typeText("/he");
  expect(await frame((f) => f.includes("Mostra comandos"))).toContain("/help  Mostra comandos e teclas");
  setup.mockInput.pressEnter();
  const help = await frame((f) => f.includes("Esc interrompe"));
  expect(help).toContain("Esc interrompe");
  expect(help).toContain("Limpa a conversa");
  setup.mockInput.pressCtrlC();
  expect(await frame((f) => f.includes("de novo para sair"))).toContain("Pressione Ctrl+C de novo para sair");
});

test("English stays the default", async () => {
  setLang("en");
  await start();
  const f = await frame((x) => x.includes("Ask anything"));
  expect(f).toContain("Ask anything · / for commands · @ for files");
  expect(f).not.toContain("Pergunte");
});
