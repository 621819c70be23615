import { expect, test } from "bun:test";
import { createNotifier, notifyConfig, oscSequence } from "../../../src/ui/shared/notifier.ts";
import { loadConfig } from "../../../src/config/load-config.ts";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const completed = { type: "turn.completed" as const, turnId: "t", stopReason: "stop", usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 }, totalUsage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 }, contextTokens: 0, contextWindow: 0 };

function sink(isTTY: boolean) {
  const out = { written: "", isTTY, write(s: string) { out.written += s; } };
  return out;
}

test("settings shapes: a mode string or an object; defaults bell after 10 s", () => {
  expect(notifyConfig(undefined)).toEqual({ mode: "bell", afterSeconds: 10 });
  expect(notifyConfig("osc")).toEqual({ mode: "osc", afterSeconds: 10 });
  expect(notifyConfig({ afterSeconds: 3 })).toEqual({ mode: "bell", afterSeconds: 3 });
  expect(notifyConfig({ mode: "off" })).toEqual({ mode: "off", afterSeconds: 10 });
  const home = mkdtempSync(join(tmpdir(), "notify-cfg-"));
  mkdirSync(join(home, ".chatcli"), { recursive: true });
  for (const notify of ["bell", { mode: "osc", afterSeconds: 30 }] as const) {
    writeFileSync(join(home, ".chatcli", "settings.json"), JSON.stringify({ notify }));
    expect(loadConfig({ cwd: home, env: { HOME: home, CHATCLI_HOME: join(home, ".chatcli") }, flags: {} }).settings.notify).toEqual(notify);
  }
  writeFileSync(join(home, ".chatcli", "settings.json"), JSON.stringify({ notify: "loud" }));
  expect(() => loadConfig({ cwd: home, env: { HOME: home, CHATCLI_HOME: join(home, ".chatcli") }, flags: {} })).toThrow(/notify/);
});

test("bell only for turns at least afterSeconds long, and when an approval waits; nothing when not a terminal or off", () => {
  let now = 0;
  const out = sink(true);
  const n = createNotifier({ config: { mode: "bell", afterSeconds: 10 }, out, env: {}, now: () => now })!;
  n({ type: "turn.started", turnId: "t", input: "x" });
  now = 9_000;
  n(completed);
  expect(out.written).toBe("");
  n({ type: "turn.started", turnId: "t", input: "x" });
  now = 20_000;
  n(completed);
  expect(out.written).toBe("\x07");
  n({ type: "approval.requested", requestId: "r", tool: "exec", action: "make", reason: "" });
  expect(out.written).toBe("\x07\x07");
  expect(createNotifier({ config: { mode: "bell", afterSeconds: 0 }, out: sink(false), env: {} })).toBeUndefined();
  expect(createNotifier({ config: { mode: "off", afterSeconds: 0 }, out: sink(true), env: {} })).toBeUndefined();
});

test("osc: OSC 9 by default, OSC 777 for VTE/foot, wrapped for tmux; the body cannot end the sequence", () => {
  expect(oscSequence("done", {})).toBe("\x1b]9;done\x07");
  expect(oscSequence("done", { VTE_VERSION: "7600" })).toBe("\x1b]777;notify;chatcli;done\x07");
  expect(oscSequence("a\x07b;c\x1b]", {})).toBe("\x1b]9;a b c ]\x07");
  expect(oscSequence("done", { TMUX: "/tmp/x" })).toBe("\x1bPtmux;\x1b\x1b]9;done\x07\x1b\\");
  const out = sink(true);
  const n = createNotifier({ config: { mode: "osc", afterSeconds: 0 }, out, env: {} })!;
  n({ type: "approval.requested", requestId: "r", tool: "exec", action: "make test", reason: "" });
  expect(out.written).toBe("\x1b]9;chatcli: approval needed: make test\x07");
});
