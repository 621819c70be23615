// Issue 15 item 7: a tool result's text is for the model ("Do not retry the same call…"); a person sees a short
// line chosen from its errorCode/details. A real Session (real tool host and policy) behind the TUI and plain mode.
import { afterEach, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { ManualClock } from "@opentui/core/testing";
import { harness, type Harness } from "../../support/agent-harness.ts";
import { runPlain } from "../../../src/ui/tui/plain-output.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-model-text-");
let h: Harness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

const MODEL_WORDS = /Do not retry|continue with anoth|Permission denied|permission policy\. /;

function writeApp(): Harness {
  return harness({ interactive: true, replies: [{ toolCalls: [{ name: "write", args: { path: "app.txt", content: "hi" } }] }, { text: "Understood, I will not write it." }] });
}

test("TUI: a declined write shows 'Denied: write app.txt', not the text sent to the model", async () => {
  h = writeApp();
  const clock = new ManualClock();
  clock.setTime(1_000_000);
  const { setup } = await tui.start({ session: h.wired.session }, { width: 100, height: 30, clock });
  h.wired.session.submit({ type: "user_input", text: "create app.txt" });
  await tui.frame((f) => f.includes("Permission required"));
  clock.advance(300);
  setup.mockInput.pressKey("n");
  await h.wired.session.idle();
  const f = await tui.frame((x) => x.includes("Understood"));
  expect(f).toContain("Denied: write app.txt");
  expect(f).not.toMatch(MODEL_WORDS);
  // The model still got its instructions.
  const sent = h.provider.requests.at(-1)!.messages.find((m) => m.role === "tool");
  expect(sent?.content).toContain("Do not retry");
  expect(existsSync(join(h.project, "app.txt"))).toBe(false);
});

test("plain mode: the same denial reads as one human line", async () => {
  h = writeApp();
  const input = new PassThrough();
  let out = "";
  const done = runPlain(h.wired.session, input, { write: (s: string) => (out += s) });
  input.write("create app.txt\n");
  for (let i = 0; i < 100 && !out.includes("[y]once"); i++) await Bun.sleep(10);
  input.write("n\n");
  for (let i = 0; i < 200 && !out.includes("Understood"); i++) await Bun.sleep(10);
  input.end();
  await done;
  expect(out).toContain("✗ Denied: write app.txt");
  expect(out).not.toMatch(MODEL_WORDS);
});

test("TUI in pt-BR: the human line is translated", async () => {
  const { setLang } = await import("../../../src/i18n/i18n.ts");
  setLang("pt-BR");
  try {
    h = harness({ mode: "plan", replies: [{ toolCalls: [{ name: "write", args: { path: "app.txt", content: "hi" } }] }, { text: "Ok." }] });
    await tui.start({ session: h.wired.session }, { width: 100, height: 30 });
    await h.run("create app.txt");
    const f = await tui.frame((x) => x.includes("Ok."));
    expect(f).toContain("Bloqueado pela política de permissões: write app.txt");
    expect(f).not.toMatch(MODEL_WORDS);
  } finally {
    setLang("en");
  }
});
