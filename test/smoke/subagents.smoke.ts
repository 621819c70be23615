// Subagents through the compiled binary (issue 20): a model fans out 3 `explore` children; on Ollama (one request
// at a time by default) the server sees their requests strictly one after another; on an OpenAI-compatible server
// configured for 3 they overlap; the parent's last request carries all three results and its answer uses them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama, type RecordedRequest } from "../support/fake-ollama.ts";
import { startFakeSse, type FakeSseServer, type FakeSseReply, type RecordedSseRequest } from "../support/fake-sse-servers.ts";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
beforeAll(() => {
  b = isolatedBinary();
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  writeFileSync(join(b.dir, "alpha.ts"), "export const alpha = 1;\n");
});
afterAll(() => b.cleanup());

const TASKS = ["TASKALPHA", "TASKBETA", "TASKGAMMA"];
const RESULTS = ["RESULTALPHA", "RESULTBETA", "RESULTGAMMA"];
const fanOut = TASKS.map((task, i) => ({ name: "agent", arguments: { agent: "explore", description: `explore ${i}`, prompt: `Find ${task} in the code.` } }));

function streamEvents(stdout: string): Array<Record<string, unknown>> {
  return stdout.split("\n").filter((l) => l.trim().startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
}

function overlaps(spans: Array<{ at: number; endedAt?: number }>): number {
  let most = 0;
  for (const s of spans) most = Math.max(most, spans.filter((o) => o.at < (s.endedAt ?? Infinity) && s.at < (o.endedAt ?? Infinity)).length);
  return most;
}

describe("subagents (compiled binary)", () => {
  let fake: FakeOllama;
  beforeAll(() => {
    fake = startFakeOllama({ models: [{ name: "coder:7b", contextLength: 32768, capabilities: ["completion", "tools"] }] });
  });
  afterAll(() => fake.stop());

  test("Ollama: 3 explore children run strictly one after another; the answer uses all three results", async () => {
    fake.enqueue(
      { match: "FANOUT", toolCalls: fanOut, chunks: [] },
      // The first child reads a file before it answers (its second request carries the file's text).
      { match: TASKS[0]!, toolCalls: [{ name: "read", arguments: { path: "alpha.ts" } }], chunks: [] },
      ...TASKS.map((task, i) => ({ match: i === 0 ? "export const alpha" : task, text: `Found it: ${RESULTS[i]} in alpha.ts`, chunkCount: 4, chunkDelayMs: 40 })),
      { match: RESULTS[2]!, text: `Summary: ${RESULTS.join(", ")}.` },
    );
    const r = await run(b, ["-p", "FANOUT: explore three things", "--model", "coder:7b", "--output-format", "stream-json"], { OLLAMA_HOST: fake.url });
    expect(r.code).toBe(0);
    const chats = fake.requests.filter((q) => q.path === "/api/chat");
    const children = chats.filter((q) => TASKS.some((task) => JSON.stringify((q.body as { messages: unknown }).messages).includes(task)) && !JSON.stringify(q.body).includes("FANOUT"));
    expect(children).toHaveLength(4);
    // Server side: no two child requests were ever open at once.
    expect(overlaps(children as RecordedRequest[])).toBe(1);
    // The children got the explore definition: read-only tools only, a fresh context (just the task).
    for (const c of children) {
      const body = c.body as { tools: Array<{ function: { name: string } }>; messages: Array<{ role: string }> };
      expect(body.tools.map((t) => t.function.name).sort()).toEqual(["glob", "read", "search", "tree"]);
      expect(body.messages.filter((m) => m.role === "user")).toHaveLength(1);
    }
    // The child's own tool call is in the stream, labelled with the child and its parent.
    const childTool = streamEvents(r.stdout).find((e) => e.type === "tool.started" && e.name === "read");
    expect(childTool).toMatchObject({ parentId: "main" });
    expect(String(childTool!.agentId)).toMatch(/^agent_\d+$/);
    const last = JSON.stringify((chats.at(-1)!.body as { messages: unknown }).messages);
    for (const res of RESULTS) expect(last).toContain(res);
    const events = streamEvents(r.stdout);
    const started = events.filter((e) => e.type === "subagent.started");
    const completed = events.filter((e) => e.type === "subagent.completed");
    expect(started).toHaveLength(3);
    expect(completed.map((e) => e.status)).toEqual(["completed", "completed", "completed"]);
    for (const e of [...started, ...completed]) {
      expect(typeof e.agentId).toBe("string");
      expect(e.parentId).toBe("main");
    }
    const result = events.find((e) => e.type === "message.completed" && JSON.stringify(e).includes("Summary:"));
    expect(JSON.stringify(result)).toContain(RESULTS.join(", "));

    // The children's own transcripts are in the session file and are still there after --resume.
    const sessions = join(b.env.CHATCLI_HOME!, "sessions");
    const id = readdirSync(sessions).find((f) => f.endsWith(".jsonl"))!.replace(/\.jsonl$/, "");
    fake.enqueue({ match: "AFTERRESUME", text: "ok" });
    const again = await run(b, ["--resume", id, "-p", "AFTERRESUME", "--model", "coder:7b"], { OLLAMA_HOST: fake.url });
    expect(again.code).toBe(0);
    const records = readFileSync(join(sessions, `${id}.jsonl`), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string; agentId?: string; messages?: Array<{ role: string; content: string }> });
    const kids = records.filter((rec) => rec.type === "subagent");
    expect(kids).toHaveLength(3);
    const first = kids.find((k) => JSON.stringify(k.messages).includes(TASKS[0]!))!;
    expect(first.messages!.some((m) => m.role === "tool" && m.content.includes("export const alpha"))).toBe(true);
    expect(first.messages!.at(-1)!.content).toContain(RESULTS[0]!);
    expect(records.some((rec) => rec.type === "message" && JSON.stringify(rec).includes("AFTERRESUME"))).toBe(true);
  }, 60_000);
});

describe("subagents on an OpenAI-compatible endpoint configured for 3 (compiled binary)", () => {
  let sse: FakeSseServer;
  beforeAll(() => {
    sse = startFakeSse();
  });
  afterAll(() => sse.stop());

  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "local-coder", choices: [{ index: 0, delta, finish_reason: finish }] })}`;
  const textReply = (text: string, match: string, eventDelayMs = 1): FakeSseReply => ({
    match,
    eventDelayMs,
    events: [chunk({ role: "assistant", content: "" }), ...text.match(/.{1,8}/g)!.map((p) => chunk({ content: p })), chunk({}, "stop"), "data: [DONE]"],
  });
  const toolReply = (match: string): FakeSseReply => ({
    match,
    events: [
      chunk({ role: "assistant", content: null, tool_calls: fanOut.map((c, i) => ({ index: i, id: `call_${i}`, type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) }),
      chunk({}, "tool_calls"),
      "data: [DONE]",
    ],
  });

  test("3 explore children overlap on the server; the answer uses all three results", async () => {
    mkdirSync(join(b.home, ".chatcli"), { recursive: true });
    writeFileSync(join(b.home, ".chatcli", "settings.json"), JSON.stringify({ providers: { openaiCompatible: [{ name: "local3", baseUrl: `${sse.url}/v1`, models: ["local-coder"], concurrency: 3 }] } }));
    try {
      sse.enqueue(toolReply("FANOUT"), ...TASKS.map((task, i) => textReply(`Found it: ${RESULTS[i]} in alpha.ts`, task, 60)), textReply(`Summary: ${RESULTS.join(", ")}.`, RESULTS[2]!));
      const r = await run(b, ["-p", "FANOUT: explore three things", "--provider", "local3", "--output-format", "stream-json"], {});
      expect(r.code).toBe(0);
      const posts = sse.requests.filter((q) => q.method === "POST" && q.path.endsWith("/chat/completions"));
      const children = posts.filter((q) => !JSON.stringify(q.body).includes("FANOUT"));
      expect(children).toHaveLength(3);
      expect(overlaps(children as RecordedSseRequest[])).toBe(3);
      const last = JSON.stringify(posts.at(-1)!.body);
      for (const res of RESULTS) expect(last).toContain(res);
      expect(r.stdout).toContain(`Summary: ${RESULTS.join(", ")}.`);
    } finally {
      writeFileSync(join(b.home, ".chatcli", "settings.json"), "{}");
    }
  }, 60_000);
});
