// A real Session (scripted model, real tools) autosaves through the recorder; loading the file and replaying it
// through the TUI reducer must give the same view as the live events did. Resuming continues the same file.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load-config.ts";
import { wireSession } from "../../src/cli/wire-session.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import { loadSession } from "../../src/store/session-file.ts";
import { transcriptEvents, withReplay } from "../../src/store/session-replay.ts";
import { initialViewState, reduce, type ViewState } from "../../src/ui/tui/view-model.ts";
import { harness, type Harness } from "../support/agent-harness.ts";
import { ScriptedProvider } from "../support/scripted-provider.ts";

let h: Harness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

const init = () => initialViewState({ provider: "SCRIPTED", model: "scripted-model", permissionMode: "default", displayMode: "full" });
const view = (events: AgentEvent[]): ViewState => events.reduce((s, e) => reduce(s, e, 0), init());
const comparable = (s: ViewState) => ({ items: s.items, labels: s.labels, live: s.live, running: s.status.running, tokens: [s.status.contextTokens, s.status.totalInputTokens, s.status.totalOutputTokens], lastCheckpointId: s.lastCheckpointId });

const MD = "Here is the plan.\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n- one\n- two\n\nDone for now";

describe("session recording and replay", () => {
  test("replaying the saved file through the reducer reproduces the live view", async () => {
    h = harness({
      replies: [
        { thinking: "let me think", text: "Reading it.", chunks: 4, toolCalls: [{ name: "read", args: { path: "notes.txt" } }], inputTokens: 100, outputTokens: 10 },
        { text: MD, chunks: 9, inputTokens: 150, outputTokens: 30 },
        { text: "Second answer with @nothing", chunks: 2 },
      ],
    });
    writeFileSync(join(h.project, "notes.txt"), "hello from notes\n");
    await h.run("read notes.txt please");
    const batch = h.of("tool.completed")[0]!.batchId;
    h.wired.session.publish({ type: "tool_use_summary", batchId: batch, label: "Read the notes", callIds: [h.of("tool.completed")[0]!.callId] });
    await h.run("and now @missing/file.ts too");
    const recorder = h.wired.recorder!;
    const live = view(h.events);
    const loaded = loadSession(recorder.file);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.meta.title).toBe("read notes.txt please");
    expect(loaded.history).toEqual([...h.wired.session.messages]);
    const replayed = view(transcriptEvents(loaded));
    expect(comparable(replayed)).toEqual(comparable(live));
    // The transcript really has the pieces (not two empty views).
    const kinds: string[] = live.items.map((i) => i.kind);
    for (const k of ["user", "thinking", "markdown", "tools", "summary", "notice"]) expect(kinds).toContain(k);
    expect(live.items.filter((i) => i.kind === "markdown").length).toBeGreaterThan(3);
  });

  test("an interrupted stream and a crash mid-turn replay without a turn left running", async () => {
    h = harness({ replies: [{ text: "partial answer\n\nthat goes on and on", chunks: 20, delayMs: 15 }] });
    h.wired.session.submit({ type: "user_input", text: "long one" });
    while (!h.of("message.delta").length) await Bun.sleep(5);
    h.wired.session.submit({ type: "interrupt" });
    await h.wired.session.idle();
    const file = h.wired.recorder!.file;
    const live = view(h.events);
    expect(comparable(view(transcriptEvents(loadSession(file))))).toEqual(comparable(live));
    // Simulate a crash: drop everything after turn.started.
    const lines = readFileSync(file, "utf8").split("\n");
    const cut = lines.findIndex((l) => l.includes('"turn.started"'));
    writeFileSync(file, `${lines.slice(0, cut + 2).join("\n")}\n`);
    const after = view(transcriptEvents(loadSession(file)));
    expect(after.status.running).toBe(false);
    expect(after.items.at(-1)).toMatchObject({ kind: "notice", level: "warn" });
  });

  test("resume: the next request carries the saved history, the same file grows, subscribers get the transcript first", async () => {
    h = harness({ replies: [{ text: "I am the first answer." }] });
    await h.run("remember the word pineapple");
    const file = h.wired.recorder!.file;
    const loaded = loadSession(file);
    const provider = new ScriptedProvider([{ text: "You said pineapple." }]);
    const cfg = loadConfig({ cwd: h.project, env: { HOME: h.home, CHATCLI_HOME: join(h.home, ".chatcli"), PATH: process.env.PATH ?? "" }, flags: {} });
    const wired = wireSession({
      cfg,
      resolved: { providerId: "SCRIPTED", provider, baseUrl: "scripted://", model: "scripted-model", info: { id: "scripted-model", contextWindow: 32768, supportsTools: true } },
      permissionMode: "default",
      interactive: false,
      resume: loaded,
    });
    try {
      const seen: AgentEvent[] = [];
      const replayed = withReplay(wired.session, transcriptEvents(loaded));
      replayed.subscribe((e) => seen.push(e));
      expect(seen.length).toBe(transcriptEvents(loaded).length);
      replayed.submit({ type: "user_input", text: "what word?" });
      await wired.session.idle();
      const sent = provider.requests[0]!.messages.map((m) => m.content);
      expect(sent).toContain("remember the word pineapple");
      expect(sent).toContain("I am the first answer.");
      expect(wired.recorder!.file).toBe(file);
      const again = loadSession(file);
      expect(again.history.map((m) => m.content)).toEqual(["remember the word pineapple", "I am the first answer.", "what word?", "You said pineapple."]);
      expect(readFileSync(file, "utf8").match(/"type":"meta"/g)).toHaveLength(1);
      // Replaying both runs renders both exchanges.
      const items = view(transcriptEvents(again)).items;
      expect(items.filter((i) => i.kind === "user").map((i) => (i.kind === "user" ? i.text : ""))).toEqual(["remember the word pineapple", "what word?"]);
    } finally {
      wired.dispose();
    }
  });

  test("nothing said, nothing saved; @path attaches the file to the model's copy only", async () => {
    h = harness({ replies: [{ text: "Seen it." }] });
    expect(h.wired.recorder!.hasFile).toBe(false);
    writeFileSync(join(h.project, "spec.md"), "THE SPEC BODY\n");
    await h.run("look at @spec.md");
    const sent = h.provider.requests[0]!.messages.find((m) => m.role === "user")!.content;
    expect(sent).toContain('<attached_file path="spec.md">');
    expect(sent).toContain("THE SPEC BODY");
    expect(h.of("turn.started")[0]!.input).toBe("look at @spec.md");
    expect(view(h.events).items[0]).toEqual({ kind: "user", text: "look at @spec.md" });
  });
});
