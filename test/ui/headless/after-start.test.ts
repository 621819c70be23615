// runHeadless's afterStart (the sandbox notice): whatever it publishes late is still printed, and turn.completed
// stays the last stream-json line even when that work finishes after the run.
import { afterEach, expect, test } from "bun:test";
import { runHeadless } from "../../../src/ui/headless/run-headless.ts";
import { harness, type Harness } from "../../support/agent-harness.ts";

let h: Harness | undefined;
afterEach(() => h?.cleanup());

test("a notice published after the run ends is printed before turn.completed", async () => {
  h = harness({ replies: [{ text: "answer" }] });
  const session = h.wired.session;
  let out = "";
  const r = await runHeadless({
    session,
    prompt: "hi",
    format: "stream-json",
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: () => undefined },
    startedAt: Date.now(),
    describeError: (e) => e.message,
    afterStart: async () => {
      await session.idle();
      await Bun.sleep(50);
      session.publish({ type: "notice", level: "info", text: "late notice" });
    },
  });
  expect(r.exitCode).toBe(0);
  const types = out.trim().split("\n").map((l) => (JSON.parse(l) as { type: string; text?: string }));
  expect(types[0]!.type).toBe("session.started");
  expect(types.at(-2)).toMatchObject({ type: "notice", text: "late notice" });
  expect(types.at(-1)!.type).toBe("turn.completed");
});
