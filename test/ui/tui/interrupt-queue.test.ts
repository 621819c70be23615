// Issue 15 item 6 on the TUI: Esc / Ctrl+C stop the agent and the queue stays waiting (shown as paused); Enter on
// an empty prompt sends it, Ctrl+X drops it. A real Session paced by a scripted provider, on the test renderer.
import { afterEach, expect, test } from "bun:test";
import type { TestRendererSetup } from "@opentui/core/testing";
import { ScriptedProvider, deferred } from "../../support/scripted-provider.ts";
import { bindingOf, makeSession, type MachineHarness } from "../../support/machine-session.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-interrupt-");
let setup: TestRendererSetup;
let m: MachineHarness | undefined;
let provider: ScriptedProvider;
afterEach(() => {
  m?.cleanup();
  m = undefined;
});

/** A run that waits for the interrupt, with "more" typed behind it. */
async function startBusyWithQueue(): Promise<void> {
  provider = new ScriptedProvider([{ text: "never", gate: deferred().promise }, { text: "the queued answer" }]);
  m = makeSession({ binding: bindingOf(provider, { id: "SCRIPTED", model: "scripted-model" }) });
  ({ setup } = await tui.start({ session: m.session, provider: "SCRIPTED", model: "scripted-model", permissionMode: "bypass" }, { width: 100, height: 24 }));
  await setup.mockInput.typeText("go");
  setup.mockInput.pressEnter();
  await provider.requested(1);
  await setup.mockInput.typeText("more");
  setup.mockInput.pressEnter();
  expect(await tui.frame((f) => f.includes("▼ 1 queued"))).toContain("▼ 1 queued (ctrl+x removes the last)");
}

test("Esc stops the run and keeps the queue, shown as paused; Enter on the empty prompt sends it", async () => {
  await startBusyWithQueue();
  setup.mockInput.pressEscape();
  await m!.session.idle();
  const paused = await tui.frame((f) => f.includes("paused"));
  expect(paused).toContain("▼ 1 queued, paused by the interrupt (Enter sends");
  expect(paused).toContain("1. more");
  expect(provider.requests).toHaveLength(1);
  setup.mockInput.pressEnter();
  await provider.requested(2);
  await m!.session.idle();
  const sent = await tui.frame((f) => f.includes("the queued answer"));
  expect(sent).not.toContain("queued,");
  expect(provider.requests[1]!.messages.filter((x) => x.role === "user").at(-1)!.content).toBe("more");
});

test("Ctrl+C stops the run and keeps the queue; Ctrl+X drops it, and nothing is sent", async () => {
  await startBusyWithQueue();
  setup.mockInput.pressCtrlC();
  await m!.session.idle();
  expect(await tui.frame((f) => f.includes("paused"))).toContain("▼ 1 queued, paused");
  setup.mockInput.pressKey("x", { ctrl: true });
  expect(await tui.frame((f) => !f.includes("queued"))).not.toContain("queued");
  setup.mockInput.pressEnter();
  await m!.session.idle();
  expect(provider.requests).toHaveLength(1);
  expect(m!.of("turn.started")).toHaveLength(1);
});
