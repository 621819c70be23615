// Tool-use summaries end to end below the UI: a real wired Session with real tools in a temp project, the main
// model and the fast model on two fake Ollama servers, so every request each model got is on record.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "../../src/llm/providers/index.ts";
import { createProvider } from "../../src/llm/registry.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { wireSession, type WiredSession } from "../../src/cli/wire-session.ts";
import { runHeadless } from "../../src/ui/headless/run-headless.ts";
import { initialViewState, reduce } from "../../src/ui/tui/view-model.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import { startFakeOllama, type FakeOllama, type FakeReply } from "../support/fake-ollama.ts";

const MAIN_MODEL = "qwen3:8b";
const FAST_MODEL = "qwen3:0.6b";

interface Rig {
  main: FakeOllama;
  fast: FakeOllama;
  wired: WiredSession;
  events: Array<{ e: AgentEvent; at: number }>;
  of<T extends AgentEvent["type"]>(type: T): Array<Extract<AgentEvent, { type: T }>>;
  atOf(type: AgentEvent["type"]): number;
  run(text: string): Promise<void>;
}

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.reverse()) c();
  cleanups = [];
});

const twoReads: FakeReply = { toolCalls: [{ name: "read", arguments: { path: "a.txt" } }, { name: "read", arguments: { path: "b.txt" } }] };

type Urls = { main: string; fast: string };

function rig(o: { mainReplies: FakeReply[]; fastReply?: FakeReply; env?: Record<string, string> | ((u: Urls) => Record<string, string>); settings?: unknown; summaries?: boolean }): Rig {
  const root = mkdtempSync(join(tmpdir(), "chatcli-summaries-"));
  const project = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(join(home, ".chatcli"), { recursive: true });
  writeFileSync(join(project, "a.txt"), "hello from a\n");
  writeFileSync(join(project, "b.txt"), "hello from b\n");
  const main = startFakeOllama({ models: [{ name: MAIN_MODEL, contextLength: 40960, capabilities: ["completion", "tools"] }], replies: o.mainReplies, defaultReply: { text: "(main: no more replies)" } });
  const fast = startFakeOllama({ models: [{ name: FAST_MODEL, contextLength: 40960, capabilities: ["completion"] }], defaultReply: o.fastReply ?? { text: "Read a.txt and b.txt" } });
  const urls = { main: main.url, fast: fast.url };
  const settings = typeof o.settings === "function" ? (o.settings as (u: Urls) => unknown)(urls) : o.settings;
  if (settings) writeFileSync(join(home, ".chatcli", "settings.json"), JSON.stringify(settings));
  const env: Record<string, string> = {
    HOME: home,
    CHATCLI_HOME: join(home, ".chatcli"),
    TMPDIR: root,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    // The env the fast model's provider is built from points at the fast server; the main provider is built apart.
    OLLAMA_HOST: fast.url,
    ...(typeof o.env === "function" ? o.env(urls) : o.env),
  };
  const cfg = loadConfig({ cwd: project, env, flags: {} });
  const provider = createProvider("OLLAMA", { OLLAMA_HOST: main.url, MAX_RETRIES: "1" });
  const wired = wireSession({
    cfg,
    resolved: { providerId: "OLLAMA", provider, baseUrl: main.url, model: MAIN_MODEL, info: { id: MAIN_MODEL, contextWindow: 32768, supportsTools: true } },
    permissionMode: "default",
    interactive: false,
    ...(o.summaries === false ? { summaries: false } : {}),
  });
  const events: Rig["events"] = [];
  wired.session.subscribe((e) => events.push({ e, at: Date.now() }));
  cleanups.push(() => {
    wired.dispose();
    main.stop();
    fast.stop();
    rmSync(root, { recursive: true, force: true });
  });
  return {
    main,
    fast,
    wired,
    events,
    of: <T extends AgentEvent["type"]>(type: T) => events.map((x) => x.e).filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type),
    atOf: (type) => events.find((x) => x.e.type === type)?.at ?? Number.NaN,
    run: async (text) => {
      wired.session.submit({ type: "user_input", text });
      await wired.session.idle();
      await wired.summaries?.whenIdle();
    },
  };
}

const isSummaryRequest = (body: Record<string, unknown>) => JSON.stringify(body.messages ?? "").includes("You label batches of tool calls");

describe("tool-use summaries with a real session", () => {
  // Both models on Ollama but on two hosts: OLLAMA_HOST is the main one; the fast model names its own.
  for (const [how, settings, env] of [
    ["settings object { model, baseUrl }", (u: Urls) => ({ fastModel: { model: `OLLAMA:${FAST_MODEL}`, baseUrl: u.fast } }), {}],
    ["settings string with an @url suffix", (u: Urls) => ({ fastModel: `OLLAMA:${FAST_MODEL}@${u.fast}` }), {}],
    ["CHATCLI_FAST_MODEL_BASE_URL", () => ({ fastModel: `OLLAMA:${FAST_MODEL}` }), (u: Urls) => ({ CHATCLI_FAST_MODEL_BASE_URL: u.fast })],
  ] as const) {
    test(`the fast model can live on its own host (${how}); the intent falls back to the user's prompt`, async () => {
      const r = rig({
        mainReplies: [twoReads, { text: "done" }],
        settings,
        env: (u) => ({ OLLAMA_HOST: u.main, ...(typeof env === "function" ? env(u) : env) }),
      });
      await r.run("what do a.txt and b.txt say?");
      const fastReqs = r.fast.chatRequests();
      expect(fastReqs).toHaveLength(1);
      expect(fastReqs[0]!.model).toBe(FAST_MODEL);
      // The tool-only reply has no text, so the user's prompt states the intent.
      expect(JSON.stringify(fastReqs[0]!.messages)).toContain("Assistant's intent: what do a.txt and b.txt say?");
      expect(r.main.chatRequests().map((b) => b.model)).toEqual([MAIN_MODEL, MAIN_MODEL]);
      expect(r.of("tool_use_summary").map((e) => e.label)).toEqual(["Read a.txt and b.txt"]);
    });
  }

  test("the label comes from the fast model while the main model streams the next turn; never from the main model", async () => {
    const r = rig({
      mainReplies: [twoReads, { text: "Both files say hello, as the two reads showed.", chunkCount: 10, chunkDelayMs: 200 }],
      fastReply: { text: "Read a.txt and b.txt", headerDelayMs: 300 },
      env: { CHATCLI_FAST_MODEL: `OLLAMA:${FAST_MODEL}` },
    });
    await r.run("what do a.txt and b.txt say?");

    // The fast server got exactly one label request, shaped as specified.
    const fastReqs = r.fast.requests.filter((x) => x.path === "/api/chat");
    expect(fastReqs).toHaveLength(1);
    const body = fastReqs[0]!.body as Record<string, unknown> & { options: Record<string, number>; messages: Array<{ content: string }> };
    expect(body.model).toBe(FAST_MODEL);
    expect(body.tools).toBeUndefined();
    expect(body.options.temperature).toBe(0.2);
    expect(body.options.num_predict).toBeLessThanOrEqual(64);
    expect(isSummaryRequest(body)).toBe(true);
    expect(JSON.stringify(body.messages)).toContain("hello from a");

    // The main server only ever saw the two agent turns.
    const mainReqs = r.main.requests.filter((x) => x.path === "/api/chat");
    expect(mainReqs).toHaveLength(2);
    for (const m of mainReqs) {
      expect((m.body as { model: string }).model).toBe(MAIN_MODEL);
      expect(isSummaryRequest(m.body as Record<string, unknown>)).toBe(false);
    }

    // The next turn did not wait for the label: its request reached the main server before the label existed,
    // and the label arrived while that turn was still streaming.
    const labelAt = r.atOf("tool_use_summary");
    expect(mainReqs[1]!.at).toBeLessThan(labelAt);
    expect(fastReqs[0]!.at).toBeLessThanOrEqual(mainReqs[1]!.at + 250);
    expect(labelAt).toBeLessThan(r.atOf("turn.completed"));

    const [summary] = r.of("tool_use_summary");
    const started = r.of("tool.started");
    expect(summary).toEqual({ type: "tool_use_summary", batchId: started[0]!.batchId, label: "Read a.txt and b.txt", callIds: started.map((s) => s.callId) });

    // No error reached the user, and the tokens are accounted under their own purpose.
    expect(r.of("error")).toEqual([]);
    const byPurpose = r.wired.usage.byPurpose();
    expect(byPurpose.tool_use_summary?.calls).toBe(1);
    expect(byPurpose.main?.calls).toBe(2);
    expect(r.wired.usage.formatStats()).toContain("tool_use_summary");
    expect(r.wired.usage.byModel()[`OLLAMA:${FAST_MODEL}`]?.calls).toBe(1);

    // Replayed through the TUI reducer, the label line comes right after its group.
    let s = initialViewState({ provider: "ollama", model: MAIN_MODEL, permissionMode: "default", displayMode: "full" });
    for (const { e } of r.events) s = reduce(s, e);
    const kinds = s.items.map((i) => i.kind);
    const g = kinds.indexOf("tools");
    expect(g).toBeGreaterThanOrEqual(0);
    expect(s.items[g + 1]).toMatchObject({ kind: "summary", label: "Read a.txt and b.txt" });
    expect(s.items.filter((i) => i.kind === "summary")).toHaveLength(1);
  });

  test("no fast model configured: no label, no error, and the main model is not asked", async () => {
    const r = rig({ mainReplies: [twoReads, { text: "done" }] });
    await r.run("read both");
    expect(r.wired.summaries).toBeUndefined();
    expect(r.of("tool_use_summary")).toEqual([]);
    expect(r.of("error")).toEqual([]);
    expect(r.of("notice").filter((n) => /summar|fast/i.test(n.text))).toEqual([]);
    expect(r.main.requests.filter((x) => x.path === "/api/chat")).toHaveLength(2);
    expect(r.main.chatRequests().some(isSummaryRequest)).toBe(false);
    expect(r.fast.requests).toHaveLength(0);
    expect(r.wired.usage.byPurpose().tool_use_summary).toBeUndefined();
  });

  test("a failing fast model is silent and the run is unaffected", async () => {
    const r = rig({ mainReplies: [twoReads, { text: "done" }], fastReply: { status: 500, errorBody: '{"error":"boom"}' }, env: { CHATCLI_FAST_MODEL: `OLLAMA:${FAST_MODEL}` } });
    await r.run("read both");
    // One try only: a label retried after backoff would come too late to matter.
    expect(r.fast.requests.filter((x) => x.path === "/api/chat")).toHaveLength(1);
    expect(r.of("tool_use_summary")).toEqual([]);
    expect(r.of("error")).toEqual([]);
    expect(r.of("turn.completed")[0]!.stopReason).toBe("stop");
  });

  test("gate: settings turn it off, the env var turns it back on", async () => {
    const settings = { fastModel: `OLLAMA:${FAST_MODEL}`, experimental: { emitToolUseSummaries: false } };
    const off = rig({ mainReplies: [twoReads, { text: "done" }], settings });
    await off.run("read both");
    expect(off.fast.requests).toHaveLength(0);
    expect(off.of("tool_use_summary")).toEqual([]);

    const on = rig({ mainReplies: [twoReads, { text: "done" }], settings, env: { CHATCLI_EMIT_TOOL_USE_SUMMARIES: "1" } });
    await on.run("read both");
    expect(on.of("tool_use_summary").map((e) => e.label)).toEqual(["Read a.txt and b.txt"]);

    const envOff = rig({ mainReplies: [twoReads, { text: "done" }], settings: { fastModel: `OLLAMA:${FAST_MODEL}` }, env: { CHATCLI_EMIT_TOOL_USE_SUMMARIES: "false" } });
    await envOff.run("read both");
    expect(envOff.fast.requests).toHaveLength(0);
  });

  test("a single read gets `Read <file>` without any model call", async () => {
    const r = rig({ mainReplies: [{ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }, { text: "done" }], env: { CHATCLI_FAST_MODEL: `OLLAMA:${FAST_MODEL}` } });
    await r.run("read a");
    expect(r.of("tool_use_summary").map((e) => e.label)).toEqual(["Read a.txt"]);
    expect(r.fast.requests.filter((x) => x.path === "/api/chat")).toHaveLength(0);
    // Published before the next model turn started.
    expect(r.atOf("tool_use_summary")).toBeLessThanOrEqual(r.main.requests.filter((x) => x.path === "/api/chat")[1]!.at);
  });

  test("labels that arrive out of order stay on their own batch", async () => {
    const r = rig({
      mainReplies: [twoReads, { toolCalls: [{ name: "read", arguments: { path: "b.txt" } }, { name: "tree", arguments: {} }] }, { text: "done", chunkCount: 4, chunkDelayMs: 150 }],
      env: { CHATCLI_FAST_MODEL: `OLLAMA:${FAST_MODEL}` },
    });
    r.fast.enqueue({ text: "Read both files", headerDelayMs: 400 }, { text: "Listed the tree", headerDelayMs: 0 });
    await r.run("go");
    const started = r.of("tool.started");
    const batches = [...new Set(started.map((s) => s.batchId))];
    expect(batches).toHaveLength(2);
    const labels = r.of("tool_use_summary");
    expect(labels.map((l) => l.label)).toEqual(["Listed the tree", "Read both files"]);
    for (const l of labels) {
      const own = started.filter((s) => s.batchId === l.batchId).map((s) => s.callId);
      expect(l.callIds).toEqual(own);
    }
    expect(labels.find((l) => l.label === "Read both files")!.batchId).toBe(batches[0]!);
  });

  test("stream-json prints the tool_use_summary event before exiting", async () => {
    const r = rig({ mainReplies: [twoReads, { text: "done" }], fastReply: { text: "Label: `Read a.txt and b.txt`", headerDelayMs: 400 }, env: { CHATCLI_FAST_MODEL: `OLLAMA:${FAST_MODEL}` } });
    let out = "";
    const res = await runHeadless({
      session: r.wired.session,
      prompt: "read both",
      format: "stream-json",
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: () => true },
      startedAt: Date.now(),
      afterIdle: async () => r.wired.summaries?.whenIdle(),
      describeError: (e) => e.message,
    });
    expect(res.exitCode).toBe(0);
    const lines = out.trim().split("\n").map((l) => JSON.parse(l) as AgentEvent);
    const summary = lines.find((e) => e.type === "tool_use_summary");
    const ids = lines.filter((e): e is Extract<AgentEvent, { type: "tool.started" }> => e.type === "tool.started").map((e) => e.callId);
    expect(summary).toEqual({ type: "tool_use_summary", batchId: expect.any(String), label: "Read a.txt and b.txt", callIds: ids });
  });
});
