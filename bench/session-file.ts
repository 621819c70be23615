/**
 * Session file size and fsyncs over a long headless session (issue 26, "append-only persistence").
 * A wired Session (real read tool, result pipeline, recorder, checkpoints) is driven for TURNS user turns by a
 * reactive fake provider: each prompt gets a `read` of one of 20 big files (~36 KB, so the budget saves it
 * and microcompaction cuts then clears it as it ages), then a short answer; a compaction request gets a
 * summary. fsyncs are counted through the session store's file calls.
 * Budgets: session file ≤ 3× the final history's JSON; at most one fsync per turn (+1 at exit).
 * `--chat`: no tools, each answer ~2 KB of markdown instead (for the figure only: the transcript's events repeat
 * each answer, so a chat-only file is larger relative to its history; the budget is for the agent session).
 * Run: bun bench/session-file.ts [--turns N] [--chat]
 */
import * as nodeFs from "node:fs";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config/load-config.ts";
import { wireSession } from "../src/cli/wire-session.ts";
import type { LlmProvider } from "../src/llm/provider.ts";
import type { LlmEvent, LlmRequest } from "../src/protocol/llm.ts";
import { loadSession, type SessionFs } from "../src/store/session-file.ts";
import { SessionStore } from "../src/store/session-store.ts";

const arg = (name: string, d: number) => (process.argv.includes(`--${name}`) ? Number(process.argv[process.argv.indexOf(`--${name}`) + 1]) : d);
const TURNS = arg("turns", 200);
const FILES = 20;
const CHAT = process.argv.includes("--chat");
const ANSWER = Array.from({ length: 30 }, (_, i) => `- point ${i}: ${"some explanation of the code ".repeat(2)}`).join("\n");

/** Reads a file when the last message is the user's prompt, answers after a tool result, summarizes on request. */
class ReactiveProvider implements LlmProvider {
  readonly id = "BENCH";
  calls = 0;
  lastMainRequest: LlmRequest | undefined;
  async listModels() {
    return [{ id: "bench-model", contextWindow: 131_072, supportsTools: true }];
  }
  async modelInfo(model: string) {
    return { id: model, contextWindow: 131_072, supportsTools: true };
  }
  async *stream(req: LlmRequest): AsyncIterable<LlmEvent> {
    const n = this.calls++;
    const usage = { inputTokens: Math.ceil(JSON.stringify(req.messages).length / 4), outputTokens: 20, cachedInputTokens: 0, reasoningTokens: 0 };
    if (req.purpose !== "main") {
      yield { type: "text_delta", text: "## Summary\nFiles were read one after another; nothing is pending." };
      yield { type: "usage", usage };
      return yield { type: "done", stopReason: "stop" };
    }
    this.lastMainRequest = req;
    const last = req.messages.filter((m) => m.role !== "system").at(-1);
    if (CHAT) {
      yield { type: "text_delta", text: `Answer ${n}:\n${ANSWER}` };
      yield { type: "usage", usage };
      return yield { type: "done", stopReason: "stop" };
    }
    if (last?.role === "user") {
      const prompt = /src(\d+)\.txt/.exec(last.content)?.[1] ?? "0";
      const args = JSON.stringify({ path: `src${prompt}.txt` });
      yield { type: "toolcall_start", index: 0, id: `call_${n}`, name: "read" };
      yield { type: "toolcall_end", index: 0, id: `call_${n}`, name: "read", arguments: args };
      yield { type: "usage", usage };
      return yield { type: "done", stopReason: "tool_calls" };
    }
    yield { type: "text_delta", text: `Read it; ${n} calls so far.` };
    yield { type: "usage", usage };
    yield { type: "done", stopReason: "stop" };
  }
}

const root = mkdtempSync(join(tmpdir(), "chatcli-bench-session-"));
try {
  const project = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  for (let i = 0; i < FILES; i++) {
    writeFileSync(join(project, `src${i}.txt`), Array.from({ length: 600 }, (_, k) => `file ${i} line ${k} ${"abcdefghij".repeat(4)}`).join("\n") + "\n");
  }
  const env: Record<string, string> = { HOME: home, CHATCLI_HOME: join(home, ".chatcli"), TMPDIR: root, PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const cfg = loadConfig({ cwd: project, env, flags: {} });
  let fsyncs = 0;
  let writes = 0;
  const fs: SessionFs = {
    openSync: (p, flags, mode) => nodeFs.openSync(p, flags, mode),
    writeSync: (fd, buf, off, len) => (writes++, nodeFs.writeSync(fd, buf, off, len)),
    readSync: (fd, buf, off, len, pos) => nodeFs.readSync(fd, buf, off, len, pos),
    fsyncSync: (fd) => (fsyncs++, nodeFs.fsyncSync(fd)),
    fstatSync: (fd) => nodeFs.fstatSync(fd),
    ftruncateSync: (fd, len) => nodeFs.ftruncateSync(fd, len),
    closeSync: (fd) => nodeFs.closeSync(fd),
  };
  const provider = new ReactiveProvider();
  const wired = wireSession({
    cfg,
    resolved: { providerId: "BENCH", provider, baseUrl: "bench://", model: "bench-model", info: { id: "bench-model", contextWindow: 131_072, supportsTools: true } },
    permissionMode: "default",
    interactive: false,
    summaries: false,
    store: new SessionStore({ home: cfg.home, env, fs }),
  });
  const { session } = wired;
  let microcompacted = 0;
  let compactions = 0;
  session.subscribe((e) => {
    if (e.type === "pipeline" && e.stage === "microcompact") microcompacted++;
    if (e.type === "compaction") compactions++;
  });
  const t0 = performance.now();
  let worstFsyncsPerTurn = 0;
  for (let t = 0; t < TURNS; t++) {
    const before = fsyncs;
    session.submit({ type: "user_input", text: `read src${t % FILES}.txt` });
    await session.idle();
    worstFsyncsPerTurn = Math.max(worstFsyncsPerTurn, fsyncs - before);
  }
  const elapsed = performance.now() - t0;
  const file = wired.recorder!.file;
  const history = session.messages;
  wired.dispose();
  const fileBytes = statSync(file).size;
  const historyBytes = JSON.stringify(history).length;
  const outgoingBytes = JSON.stringify(provider.lastMainRequest?.messages ?? []).length;
  const records = readFileSync(file, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { type: string }).type);
  const count = (type: string) => records.filter((r) => r === type).length;
  const loaded = loadSession(file);
  const sameHistory = JSON.stringify(loaded.history) === JSON.stringify(history);
  const ratio = fileBytes / historyBytes;
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const ok = (b: boolean) => (b ? "OK" : "OVER BUDGET");
  console.log(`session file over ${TURNS} headless turns${CHAT ? " of chat (no tools)" : ""} (${provider.calls} model calls, ${history.length} messages, ${(elapsed / TURNS).toFixed(1)} ms per turn)`);
  console.log(`  microcompaction passes ${microcompacted}, compactions ${compactions}`);
  console.log(`  final history JSON          ${kb(historyBytes).padStart(10)}`);
  console.log(`  last request's messages     ${kb(outgoingBytes).padStart(10)}   (what the pipeline sends)`);
  console.log(`  session file                ${kb(fileBytes).padStart(10)}   ${ratio.toFixed(2)}× history   ${CHAT ? "(no budget for chat)" : `budget ≤ 3×   ${ok(ratio <= 3)}`}`);
  console.log(`  records: ${records.length} (message ${count("message")}, view ${count("view")}, checkpoint ${count("checkpoint")}, history ${count("history")}, replace ${count("replace")})`);
  console.log(`  write calls ${writes}, fsyncs ${fsyncs} (worst ${worstFsyncsPerTurn} in one turn)   budget ≤ ${TURNS + 1}, ≤ 1 per turn   ${ok(fsyncs <= TURNS + 1 && worstFsyncsPerTurn <= 1)}`);
  console.log(`  reload rebuilds the same history: ${sameHistory ? "yes" : "NO"}`);
  if (!sameHistory || (!CHAT && ratio > 3) || fsyncs > TURNS + 1) process.exitCode = 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
