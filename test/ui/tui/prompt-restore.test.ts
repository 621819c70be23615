import { afterEach, expect, test } from "bun:test";
import type { TestRendererSetup } from "@opentui/core/testing";
import { setLang } from "../../../src/i18n/i18n.ts";
import type { TuiApp } from "../../../src/ui/tui/tui-app.ts";
import { FakeSession, streamAnswer, turnCompleted } from "./fake-session.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-restore-");
const frame = tui.frame;
let setup: TestRendererSetup;
let session: FakeSession;
let app: TuiApp;

async function start() {
  setLang("en");
  session = new FakeSession();
  ({ setup, app } = await tui.start({ session }, { width: 100 }));
}

async function send(text: string) {
  await setup.mockInput.typeText(text);
  setup.mockInput.pressEnter();
  expect(app.prompt.plainText).toBe("");
}

const providerDown = { type: "error" as const, message: "Cannot reach Ollama at http://127.0.0.1:9." };

afterEach(() => {
  setLang("en");
});

test("a submitted turn that fails before any answer puts the text back into the empty prompt, with a notice", async () => {
  await start();
  await send("explain the build");
  session.emit({ type: "turn.started", turnId: "t1", input: "explain the build" }, providerDown, turnCompleted("t1", { stopReason: "error" }));
  const f = await frame((x) => x.includes("your prompt is back"));
  expect(app.prompt.plainText).toBe("explain the build");
  expect(f).toContain("› explain the build");
  expect(f).toContain("· The request failed before any answer; your prompt is back in the input box.");
  // Enter sends it again as it was.
  setup.mockInput.pressEnter();
  expect(session.opsOf("user_input").map((o) => o.text)).toEqual(["explain the build", "explain the build"]);
});

test("nothing is put back after an answer started, on success, on interrupt, or over text being typed", async () => {
  await start();
  await send("first");
  session.emit({ type: "turn.started", turnId: "t1", input: "first" });
  streamAnswer(session, "m1", "Partial answer");
  session.emit(providerDown, turnCompleted("t1", { stopReason: "error" }));
  expect(app.prompt.plainText).toBe("");

  await send("second");
  session.emit({ type: "turn.started", turnId: "t2", input: "second" }, turnCompleted("t2", { stopReason: "interrupted" }));
  expect(app.prompt.plainText).toBe("");

  await send("third");
  session.emit({ type: "turn.started", turnId: "t3", input: "third" }, turnCompleted("t3"));
  expect(app.prompt.plainText).toBe("");

  await send("fourth");
  session.emit({ type: "turn.started", turnId: "t4", input: "fourth" });
  await setup.mockInput.typeText("new draft");
  session.emit(providerDown, turnCompleted("t4", { stopReason: "error" }));
  expect(app.prompt.plainText).toBe("new draft");
  expect(app.state.items.some((i) => i.kind === "notice" && i.text.includes("prompt is back"))).toBe(false);
});

test("a failed turn the user did not type here (replayed, queued elsewhere) leaves the prompt alone", async () => {
  await start();
  session.emit({ type: "turn.started", turnId: "t1", input: "from a resumed session" }, providerDown, turnCompleted("t1", { stopReason: "error" }));
  expect(app.prompt.plainText).toBe("");
});

test("pt-BR: the notice is in Portuguese", async () => {
  await start();
  setLang("pt-BR");
  await send("olá");
  session.emit({ type: "turn.started", turnId: "t1", input: "olá" }, providerDown, turnCompleted("t1", { stopReason: "error" }));
  const f = await frame((x) => x.includes("seu prompt voltou"));
  expect(f).toContain("A solicitação falhou antes de qualquer resposta; seu prompt voltou para a caixa de entrada.");
  expect(app.prompt.plainText).toBe("olá");
});
