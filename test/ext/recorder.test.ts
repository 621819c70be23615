// A resumed session starts without a persona, so persona.changed is not recorded (a replay would show one that is
// not on); the notices around it are.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionRecorder } from "../../src/store/session-recorder.ts";
import { SessionStore } from "../../src/store/session-store.ts";

let root = "";
afterEach(() => rmSync(root, { recursive: true, force: true }));

test("persona.changed is not written to the session file", () => {
  root = mkdtempSync(join(tmpdir(), "chatcli-ext-rec-"));
  const store = new SessionStore({ home: root, env: {} });
  const rec = new SessionRecorder({ store, id: "s1", meta: { cwd: "/w", projectRoot: "/w", provider: "P", model: "m" } });
  rec.onHistoryChange({ type: "append", messages: [{ role: "user", content: "hi" }] });
  rec.onEvent({ type: "persona.changed", name: "reviewer" });
  rec.onEvent({ type: "notice", level: "info", text: "Persona: reviewer" });
  rec.close();
  const text = readFileSync(rec.file, "utf8");
  expect(text).toContain("Persona: reviewer");
  expect(text).not.toContain("persona.changed");
});
