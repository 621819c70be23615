// Independent black-box acceptance pass over issues 3 (providers), 5 (tool-result pipeline), 7 (checkpoints and
// rewind) and 9 (tool-use summaries), against the compiled binary in a temp dir with an empty HOME. Each test
// drives the binary the way a user or a script does, with the names the issues give, and asserts on what reaches
// the model (the fake servers record every request), on stdout/stderr, on the screen and on disk.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama, type FakeReply } from "../support/fake-ollama.ts";
import { startFakeSse, type FakeSseServer } from "../support/fake-sse-servers.ts";
import { hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";
import { withoutAnchor } from "../support/anchor-text.ts";

const MODEL = "coder:7b";
let b: BinaryEnv;
let fake: FakeOllama;
let tmp: string;

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({ models: [{ name: MODEL, contextLength: 131072, capabilities: ["completion", "tools"] }], defaultReply: { text: "unexpected extra request" } });
  tmp = join(b.home, "tmp");
  mkdirSync(tmp, { recursive: true });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

type Msg = { role: string; content: string; tool_name?: string };
const env = (extra: Record<string, string> = {}) => ({ OLLAMA_HOST: fake.url, TMPDIR: tmp, ...extra });
const call = (name: string, args: Record<string, unknown>): FakeReply => ({ toolCalls: [{ name, arguments: args }] });
const headless = (prompt: string, extra: Record<string, string> = {}, more: string[] = []) =>
  run(b, ["-p", prompt, "--model", MODEL, "--permission-mode", "bypass", ...more], env(extra));
/** The tool messages of the n-th /api/chat request made since `from`. */
/** The tool results of request `from + n`, without the task anchor the wire folds into the last one. */
const toolMsgs = (from: number, n: number): Msg[] =>
  ((fake.chatRequests()[from + n]!.messages ?? []) as Msg[]).filter((m) => m.role === "tool").map((m) => ({ ...m, content: withoutAnchor(m.content) }));
const lines = (n: number, width = 60, tag = "row") => Array.from({ length: n }, (_, i) => `${tag} ${i} ${"x".repeat(width)}`).join("\n") + "\n";

describe("issue 5: tool-result pipeline (compiled binary)", () => {
  test("exec printing megabytes: the model gets a preview naming a file that holds every line", async () => {
    const from = fake.chatRequests().length;
    fake.enqueue(call("exec", { command: "seq 1 400000" }), { text: "counted" });
    const r = await headless("count", { CHATCLI_AGENT_KEEP_TMPDIR: "true" });
    expect(r.code).toBe(0);
    const [res] = toolMsgs(from, 1);
    expect(res!.content.length).toBeLessThan(25_000);
    const saved = res!.content.match(/full output saved to (\S+?)\]/)?.[1];
    expect(saved).toBeDefined();
    const full = readFileSync(saved!, "utf8");
    expect(full).toContain("\n1\n2\n3\n".slice(1));
    expect(full).toContain("\n399999\n400000");
  }, 20_000);

  test("CHATCLI_TOOL_RESULT_MAX_CHARS: preview is head (to a newline) + marker + tail, the full text saved", async () => {
    const text = lines(300);
    writeFileSync(join(b.dir, "wide.txt"), text);
    const from = fake.chatRequests().length;
    fake.enqueue(call("read", { path: "wide.txt", limit: 1000 }));
    fake.enqueue({ text: "seen" });
    const r = await headless("read it", { CHATCLI_TOOL_RESULT_MAX_CHARS: "8000", CHATCLI_AGENT_KEEP_TMPDIR: "true" });
    expect(r.code).toBe(0);
    const [res] = toolMsgs(from, 1);
    const m = res!.content.match(/^([\s\S]*)\n\n\.\.\. \[(\d+) chars omitted — full output saved to (\S+?)\]\n\n([\s\S]*)$/);
    expect(m).not.toBeNull();
    const [, head, omitted, saved, tail] = m!;
    expect(head!.length).toBeLessThanOrEqual(4000);
    expect(head!.endsWith("x")).toBe(true); // cut at the last newline: a whole line, newline dropped
    expect(tail!.length).toBeLessThanOrEqual(1000);
    expect(tail!.startsWith("2")).toBe(true); // starts on a line (the read gutter's line number)
    const full = readFileSync(saved!, "utf8");
    expect(Number(omitted)).toBe(full.length - head!.length - tail!.length);
    expect(saved).toMatch(/\/\.chatcli\/sessions\/[^/]+\/tool-results\/budget_[A-Za-z0-9_.-]+\.txt$/);

  }, 20_000);

  test("the saved file is read back with `read` and a line range in the same session, in default permission mode", async () => {
    writeFileSync(join(b.dir, "wide2.txt"), lines(300));
    // A model that answers the marker: its second turn reads the path it was given, lines 150-151.
    let saved = "";
    const from = fake.chatRequests().length;
    const proxy = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const u = new URL(req.url);
        const body = req.method === "POST" ? await req.text() : undefined;
        if (u.pathname === "/api/chat" && body && !saved) {
          const m = body.match(/full output saved to ([^\]\s]+)\]/);
          if (m) {
            saved = m[1]!;
            fake.enqueue(call("read", { path: saved, offset: 150, limit: 2 }), { text: "read back" });
          }
        }
        return fetch(`${fake.url}${u.pathname}`, { method: req.method, headers: req.headers, ...(body !== undefined ? { body } : {}) });
      },
    });
    try {
      fake.enqueue(call("read", { path: "wide2.txt", limit: 1000 }));
      const r = await run(b, ["-p", "read it", "--model", MODEL], { ...env({ CHATCLI_TOOL_RESULT_MAX_CHARS: "8000" }), OLLAMA_HOST: `http://127.0.0.1:${proxy.port}` });
      expect(r.code).toBe(0);
      expect(saved).not.toBe("");
      const back = toolMsgs(from, 2)[1]!;
      expect(back.content).toContain("row 149 ");
      expect(back.content).not.toContain("row 151 ");
      expect(back.content).not.toContain("ERROR");
    } finally {
      proxy.stop(true);
    }
  }, 20_000);

  test("CHATCLI_TOOL_RESULT_BUDGET_CHARS: one turn's results are cut largest first until the turn fits", async () => {
    writeFileSync(join(b.dir, "big1.txt"), lines(180)); // ≈ 12.5K with the gutter
    writeFileSync(join(b.dir, "big2.txt"), lines(150, 60, "col")); // ≈ 10.5K
    writeFileSync(join(b.dir, "small.txt"), lines(20, 60, "tiny")); // ≈ 1.4K
    const from = fake.chatRequests().length;
    fake.enqueue({ toolCalls: [{ name: "read", arguments: { path: "big1.txt" } }, { name: "read", arguments: { path: "big2.txt" } }, { name: "read", arguments: { path: "small.txt" } }] }, { text: "three read" });
    const r = await headless("read three", { CHATCLI_TOOL_RESULT_BUDGET_CHARS: "20000" });
    expect(r.code).toBe(0);
    const res = toolMsgs(from, 1);
    expect(res).toHaveLength(3);
    expect(res[0]!.content).toContain("chars omitted — full output saved to");
    expect(res[1]!.content).not.toContain("chars omitted");
    expect(res[2]!.content).not.toContain("chars omitted");
    expect(res[1]!.content).toContain("col 149 ");
  }, 20_000);

  test("emoji-heavy output is cut on character boundaries (no U+FFFD reaches the model)", async () => {
    writeFileSync(join(b.dir, "emoji.txt"), Array.from({ length: 400 }, (_, i) => `${i} ${"😀🎉👍🏽".repeat(20)}`).join("\n"));
    const from = fake.chatRequests().length;
    fake.enqueue(call("read", { path: "emoji.txt", limit: 1000 }), { text: "smiles" });
    const r = await headless("emoji", { CHATCLI_TOOL_RESULT_MAX_CHARS: "5000" });
    expect(r.code).toBe(0);
    const [res] = toolMsgs(from, 1);
    expect(res!.content).toContain("chars omitted");
    expect(res!.content).not.toContain("\uFFFD");
  }, 20_000);

  test("microcompact with the defaults reaches the summary band: a big JSON read 4 turns back becomes one line", async () => {
    const json = JSON.stringify(Array.from({ length: 120 }, (_, i) => ({ id: i, name: `item-${i}`, tags: ["a", "b", "c"] })), null, 2);
    writeFileSync(join(b.dir, "data.json"), json);
    for (const n of ["a", "b", "c", "d"]) writeFileSync(join(b.dir, `${n}.txt`), `${n}\n`);
    const from = fake.chatRequests().length;
    fake.enqueue(call("read", { path: "data.json", limit: 5000 }));
    for (const n of ["a", "b", "c", "d"]) fake.enqueue(call("read", { path: `${n}.txt` }));
    fake.enqueue({ text: "all read" });
    const r = await headless("read all");
    expect(r.code).toBe(0);
    const reqs = fake.chatRequests().slice(from);
    expect(reqs).toHaveLength(6);
    const first = (i: number) => toolMsgs(from, i)[0]!.content;
    expect(first(1)).toContain('"name": "item-119"'); // current turn: whole
    expect(first(2)).toContain('"name": "item-119"'); // previous turn: whole
    expect(first(3)).toMatch(/omitted/); // 2 turns back: head + tail
    expect(first(3)).toContain('"name": "item-0"');
    const stub = first(5);
    expect(stub).toMatch(/^\[Old tool result cleared — \d+ lines, \d+K chars, JSON\]$/);
    expect(Number(stub.match(/— (\d+) lines/)![1])).toBe(json.split("\n").length);
  }, 20_000);

  test("a budgeted result (saved to disk) keeps its path in the old-result stub", async () => {
    writeFileSync(join(b.dir, "huge.py"), "def main():\n" + Array.from({ length: 600 }, (_, i) => `    x${i} = ${i}  # ${"p".repeat(40)}`).join("\n") + "\n");
    const from = fake.chatRequests().length;
    fake.enqueue(call("read", { path: "huge.py", limit: 5000 }));
    for (const n of ["a", "b", "c", "d"]) fake.enqueue(call("read", { path: `${n}.txt` }));
    fake.enqueue({ text: "done reading" });
    const r = await headless("read py", { CHATCLI_AGENT_KEEP_TMPDIR: "true" });
    expect(r.code).toBe(0);
    const saved = toolMsgs(from, 1)[0]!.content.match(/full output saved to (\S+?)\]/)?.[1];
    expect(saved).toBeDefined();
    const stub = toolMsgs(from, 5)[0]!.content;
    expect(stub.startsWith("[Old tool result cleared — 601 lines")).toBe(true);
    expect(stub).toContain("Python source");
    expect(stub).toContain(saved!);
    expect(readFileSync(saved!, "utf8")).toContain("x599 = 599");
  }, 20_000);

  test("microcompact env overrides move the bands; exec results and error results stay whole", async () => {
    writeFileSync(join(b.dir, "main.go"), "package main\n\n" + Array.from({ length: 200 }, (_, i) => `func f${i}() int { return ${i} * 2 + 1 }`).join("\n") + "\n");
    const from = fake.chatRequests().length;
    fake.enqueue(
      { toolCalls: [{ name: "read", arguments: { path: "main.go", limit: 5000 } }, { name: "exec", arguments: { command: "seq 1 1500" } }, { name: "read", arguments: { path: "missing-file.txt" } }] },
      call("read", { path: "a.txt" }),
      call("read", { path: "b.txt" }),
      call("read", { path: "c.txt" }),
      { text: "done" },
    );
    const r = await headless("go", { CHATCLI_MICROCOMPACT_TRUNCATE_TURNS: "1", CHATCLI_MICROCOMPACT_SUMMARIZE_TURNS: "2" });
    expect(r.code).toBe(0);
    // Age = model turns since the batch: 0 in the 2nd request, 1 in the 3rd, 2 in the 4th.
    expect(toolMsgs(from, 1)[0]!.content).toContain("func f199()");
    expect(toolMsgs(from, 2)[0]!.content).toMatch(/chars omitted from old tool result/);
    const t3 = toolMsgs(from, 3);
    expect(t3[0]!.content).toMatch(/^\[Old tool result cleared — 202 lines, \d+K chars, Go source\]$/);
    expect(t3[1]!.content).toContain("\n1500");
    expect(t3[1]!.content).toContain("1\n2\n3\n");
    expect(t3[2]!.content).toBe(toolMsgs(from, 1)[2]!.content);
    expect(t3[2]!.content).toContain("missing-file.txt");
  }, 20_000);

  test("a process killed during a tool leaves a dangling call; --continue repairs it with the exact synthetic error", async () => {
    const from = fake.chatRequests().length;
    fake.enqueue(call("exec", { command: "sleep 4" }));
    const p = Bun.spawn([b.bin, "-p", "wait", "--model", MODEL, "--permission-mode", "bypass", "--output-format", "stream-json"], { cwd: b.dir, env: { ...b.env, ...env() }, stdout: "pipe", stderr: "ignore" });
    const reader = p.stdout.getReader();
    let out = "";
    while (!out.includes('"tool.started"')) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    p.kill(9);
    await p.exited;
    fake.enqueue({ text: "resumed fine" });
    const r = await run(b, ["-c", "-p", "go on", "--model", MODEL], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("resumed fine");
    const req = fake.chatRequests()[from + 1]!.messages as Msg[];
    const tools = req.filter((m) => m.role === "tool");
    expect(tools).toHaveLength(1);
    expect(tools[0]!.content).toContain(
      "[Tool result missing — the tool execution was interrupted or failed silently. Do NOT retry this tool call. Analyze what went wrong and try a different approach.]",
    );
    // The synthetic result sits right after its call, before the new prompt.
    const roles = req.map((m) => m.role).filter((r) => r !== "system");
    expect(roles).toEqual(["user", "assistant", "tool", "user"]);
  }, 20_000);

  test("neither the session's directory nor a temp workspace can be written: the preview says so and the turn goes on", async () => {
    const notADir = join(b.home, "not-a-dir");
    writeFileSync(notADir, "");
    // A chatcli home whose sessions/ is a file: no session file, no saved outputs.
    const brokenHome = join(b.home, "broken-home");
    mkdirSync(brokenHome, { recursive: true });
    writeFileSync(join(brokenHome, "sessions"), "");
    const from = fake.chatRequests().length;
    fake.enqueue(call("exec", { command: "seq 1 100000" }), { text: "went on" });
    const r = await headless("count", { TMPDIR: notADir, CHATCLI_HOME: brokenHome });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("went on");
    const [res] = toolMsgs(from, 1);
    expect(res!.content.length).toBeLessThan(25_000);
    expect(res!.content.includes("omitted")).toBe(true);
    expect(/not saved|could not be saved|write failed|no session workspace/i.test(res!.content)).toBe(true);
  }, 20_000);
});

// Issue 9. Both models are Ollama on one OLLAMA_HOST (settings `fastModel: "OLLAMA:<fast>"`, the form the issue
// names): a router on 127.0.0.1 sends each request to the main or the fast fake by model name.
describe("issue 9: tool-use summaries (compiled binary)", () => {
  const MAIN = "qwen3:8b";
  const FAST = "qwen3:0.6b";
  let s: BinaryEnv;
  let main: FakeOllama;
  let fastM: FakeOllama;
  let router: ReturnType<typeof Bun.serve>;
  const settings = (o: Record<string, unknown>) => writeFileSync(join(s.env.CHATCLI_HOME!, "settings.json"), JSON.stringify(o));

  beforeAll(() => {
    s = isolatedBinary();
    mkdirSync(s.env.CHATCLI_HOME!, { recursive: true });
    writeFileSync(join(s.dir, "a.txt"), "alpha\n");
    writeFileSync(join(s.dir, "b.txt"), "beta\n");
    writeFileSync(join(s.dir, "long.txt"), `${"LONGLINE".repeat(200)}\n`);
    main = startFakeOllama({ models: [{ name: MAIN, contextLength: 8192, capabilities: ["completion", "tools"] }], defaultReply: { text: "unexpected extra request" } });
    fastM = startFakeOllama({ models: [{ name: FAST, contextLength: 8192, capabilities: ["completion"] }], defaultReply: { text: "Did a thing" } });
    router = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      async fetch(req) {
        const u = new URL(req.url);
        const body = req.method === "POST" ? await req.text() : undefined;
        const isFast = body !== undefined && body.includes(`"${FAST}"`);
        return fetch(`${isFast ? fastM.url : main.url}${u.pathname}`, { method: req.method, headers: req.headers, ...(body !== undefined ? { body } : {}) });
      },
    });
  });
  afterAll(() => {
    router.stop(true);
    main.stop();
    fastM.stop();
    s.cleanup();
  });

  type Line = { type: string; [k: string]: unknown };
  const go = async (prompt: string, extra: Record<string, string> = {}, format = "stream-json") => {
    const r = await run(s, ["-p", prompt, "--model", MAIN, "--output-format", format], { OLLAMA_HOST: `http://127.0.0.1:${router.port}`, ...extra });
    expect(r.code).toBe(0);
    return r;
  };
  const events = (stdout: string) => stdout.trim().split("\n").map((l) => JSON.parse(l) as Line);
  const twoReads = () => main.enqueue({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }, { name: "read", arguments: { path: "b.txt" } }] }, { text: "Both read." });

  test("a single read is labelled `Read <file>` with no model call", async () => {
    settings({ fastModel: `OLLAMA:${FAST}` });
    const before = fastM.chatRequests().length;
    main.enqueue(call("read", { path: "a.txt" }), { text: "Read it." });
    const r = await go("read a");
    const sum = events(r.stdout).filter((e) => e.type === "tool_use_summary");
    expect(sum).toHaveLength(1);
    expect(sum[0]!.label).toBe("Read a.txt");
    expect(fastM.chatRequests().length).toBe(before);
  });

  test("settings `fastModel: \"OLLAMA:<model>\"`: a two-call batch is labelled by the fast model, fields cut to 300 chars", async () => {
    settings({ fastModel: `OLLAMA:${FAST}` });
    const before = fastM.chatRequests().length;
    main.enqueue({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }, { name: "read", arguments: { path: "long.txt" } }] }, { text: "Both read." });
    fastM.enqueue({ text: "- `Read a.txt and long.txt`\nExtra explanation line" });
    const r = await go("read two");
    const sum = events(r.stdout).find((e) => e.type === "tool_use_summary");
    expect(sum?.label).toBe("Read a.txt and long.txt");
    const reqs = fastM.chatRequests().slice(before);
    expect(reqs).toHaveLength(1);
    expect(reqs[0]!.tools).toBeUndefined();
    const text = JSON.stringify(reqs[0]!.messages);
    expect(text).toContain("LONGLINE");
    expect(text).not.toContain("LONGLINE".repeat(40)); // 320 chars: the output field was cut to 300
  });

  test("CHATCLI_EMIT_TOOL_USE_SUMMARIES=0 beats settings; =true beats experimental.emitToolUseSummaries=false", async () => {
    settings({ fastModel: `OLLAMA:${FAST}` });
    const before = fastM.chatRequests().length;
    twoReads();
    let r = await go("read both", { CHATCLI_EMIT_TOOL_USE_SUMMARIES: "0" });
    expect(r.stdout).not.toContain("tool_use_summary");
    expect(fastM.chatRequests().length).toBe(before);

    settings({ fastModel: `OLLAMA:${FAST}`, experimental: { emitToolUseSummaries: false } });
    twoReads();
    r = await go("read both");
    expect(r.stdout).not.toContain("tool_use_summary");
    expect(fastM.chatRequests().length).toBe(before);

    twoReads();
    fastM.enqueue({ text: "Read both files" });
    r = await go("read both", { CHATCLI_EMIT_TOOL_USE_SUMMARIES: "true" });
    expect(events(r.stdout).find((e) => e.type === "tool_use_summary")?.label).toBe("Read both files");
    expect(fastM.chatRequests().length).toBe(before + 1);
  });

  test("only successful calls are described; a batch of failures gets no label and no call", async () => {
    settings({ fastModel: `OLLAMA:${FAST}` });
    const before = fastM.chatRequests().length;
    main.enqueue({ toolCalls: [{ name: "read", arguments: { path: "nope-1.txt" } }, { name: "read", arguments: { path: "nope-2.txt" } }] }, { text: "Neither exists." });
    let r = await go("read missing");
    expect(r.stdout).not.toContain("tool_use_summary");
    expect(fastM.chatRequests().length).toBe(before);

    main.enqueue({ toolCalls: [{ name: "read", arguments: { path: "nope-3.txt" } }, { name: "exec", arguments: { command: "echo hi-there" } }] }, { text: "One worked." });
    fastM.enqueue({ text: "Ran echo" });
    r = await run(s, ["-p", "mixed", "--model", MAIN, "--output-format", "stream-json", "--permission-mode", "bypass"], { OLLAMA_HOST: `http://127.0.0.1:${router.port}` });
    expect(r.code).toBe(0);
    const text = JSON.stringify(fastM.chatRequests().slice(before));
    expect(text).toContain("hi-there");
    expect(text).not.toContain("nope-3.txt");
    const sum = events(r.stdout).find((e) => e.type === "tool_use_summary");
    const started = events(r.stdout).filter((e) => e.type === "tool.started");
    expect(sum?.label).toBe("Ran echo");
    expect(sum?.callIds).toEqual([started[1]!.callId]);
  });

  test("an error-shaped reply or a failing fast model: no label, no error, and the main model is never asked", async () => {
    settings({ fastModel: `OLLAMA:${FAST}` });
    const mainBefore = main.chatRequests().length;
    twoReads();
    fastM.enqueue({ text: "Error: model is overloaded" });
    let r = await go("read both");
    expect(r.stdout).not.toContain("tool_use_summary");
    expect(r.stderr).not.toMatch(/error/i);
    twoReads();
    fastM.enqueue({ status: 500, errorBody: '{"error":"boom"}' });
    r = await go("read both", { MAX_RETRIES: "0" });
    expect(r.stdout).not.toContain("tool_use_summary");
    expect(r.stdout).toContain('"turn.completed"');
    expect(main.chatRequests().length - mainBefore).toBe(4);
    for (const c of main.chatRequests().slice(mainBefore)) expect(JSON.stringify(c.messages)).not.toContain("You label batches of tool calls");
  }, 20_000);

  test.skipIf(!hasTmux())("/stats shows the label's tokens under tool_use_summary, apart from the main model's", async () => {
    settings({ fastModel: `OLLAMA:${FAST}` });
    twoReads();
    fastM.enqueue({ text: "Read a and b", promptEvalCount: 777, evalCount: 5 });
    const tmux = new Tmux(join(s.dir, "..", "tmux-qa-stats.sock"), paneCommand(s, `--model ${MAIN}`, { env: { OLLAMA_HOST: `http://127.0.0.1:${router.port}` } }), 110, 40);
    try {
      await tmux.waitFor((x) => x.includes("Ask anything"));
      tmux.sendLiteral("read both");
      tmux.send("Enter");
      await tmux.waitFor((x) => x.includes("Both read.") && x.includes("Read a and b"));
      tmux.sendLiteral("/stats");
      tmux.send("Enter");
      const screen = await tmux.waitFor((x) => x.includes("tool_use_summary"));
      const row = screen.split("\n").find((l) => l.includes("tool_use_summary"))!;
      expect(row).toContain("777");
    } finally {
      tmux.kill();
    }
  }, 20_000);
});

// Issue 7 in tmux: a file an `exec` command changed and one it created, restored with "code only" (the
// conversation stays); a file edited by the user afterwards is a conflict, skipped unless the user overwrites.
describe.skipIf(!hasTmux())("issue 7: checkpoints and rewind (compiled binary in tmux)", () => {
  let r: BinaryEnv;
  let fk: FakeOllama;
  beforeAll(() => {
    r = isolatedBinary();
    Bun.spawnSync(["git", "init", "-q"], { cwd: r.dir });
    fk = startFakeOllama({ models: [{ name: MODEL, contextLength: 32768, capabilities: ["completion", "tools"] }], defaultReply: { text: "Nothing more." } });
  });
  afterAll(() => {
    fk.stop();
    r.cleanup();
  });
  const start = (sock: string, extra: Record<string, string> = {}) =>
    new Tmux(join(r.home, sock), paneCommand(r, `--model ${MODEL} --permission-mode bypass`, { env: { OLLAMA_HOST: fk.url, ...extra } }), 110, 36);
  const file = (n: string) => join(r.dir, n);

  test("no checkpoints: /rewind is a notice; Esc Esc on a typed prompt clears it and opens nothing", async () => {
    const t = start("qa-rw-1.sock");
    try {
      await t.waitFor((s) => s.includes("Ask anything"));
      t.sendLiteral("/rewind");
      t.send("Enter");
      const s1 = await t.waitFor((s) => s.includes("No checkpoints yet"));
      expect(s1).not.toContain("Select a checkpoint");
      t.sendLiteral("draft to throw away");
      await t.waitFor((s) => s.includes("draft to throw away"));
      t.send("Escape");
      await Bun.sleep(60);
      t.send("Escape");
      await t.waitFor((s) => !s.includes("draft to throw away"));
      await Bun.sleep(300);
      expect(t.capture()).not.toContain("Select a checkpoint");
    } finally {
      t.kill();
    }
  }, 20_000);

  test("files an exec command changed and created: code-only restore brings one back and deletes the other; the conversation stays", async () => {
    writeFileSync(file("config file.txt"), "original ✓\r\nline two\r\n");
    fk.enqueue(call("exec", { command: "printf 'by exec\\n' > 'config file.txt' && echo new > created.txt" }), { text: "Exec finished." });
    const t = start("qa-rw-2.sock");
    try {
      await t.waitFor((s) => s.includes("Ask anything"));
      t.sendLiteral("change things");
      t.send("Enter");
      await t.waitFor((s) => s.includes("Exec finished."));
      expect(readFileSync(file("config file.txt"), "utf8")).toBe("by exec\n");
      t.send("Escape");
      await Bun.sleep(60);
      t.send("Escape");
      const menu = await t.waitFor((s) => s.includes("Select a checkpoint"));
      const rows = menu.split("\n").filter((l) => / msgs? /.test(l));
      expect(rows).toHaveLength(2);
      expect(rows[1]).toContain("+2 files"); // the first checkpoint: the files changed after it
      t.send("Down");
      t.send("Enter");
      await t.waitFor((s) => s.includes("Restore code only"));
      t.send("Down");
      t.send("Down");
      t.send("Enter");
      const plan = await t.waitFor((s) => s.includes("Will change"));
      expect(plan).toContain("config file.txt");
      expect(plan).toContain("created.txt");
      expect(plan).toContain("Restore and delete the 1 created file");
      t.send("Enter");
      const after = await t.waitFor((s) => s.includes("Restored 1 file"));
      expect(readFileSync(file("config file.txt"), "utf8")).toBe("original ✓\r\nline two\r\n");
      expect(existsSync(file("created.txt"))).toBe(false);
      expect(after).toContain("Exec finished."); // code only: the conversation is untouched
    } finally {
      t.kill();
    }
  }, 25_000);

  test("a file edited outside chatcli after the turn is a conflict: listed, skipped by Restore, overwritten on request", async () => {
    writeFileSync(file("notes.md"), "v0\n");
    fk.enqueue(call("write", { path: "notes.md", content: "v1 by model\n" }), { text: "Wrote v1." });
    const t = start("qa-rw-3.sock");
    const openPlan = async () => {
      t.send("Escape");
      await Bun.sleep(60);
      t.send("Escape");
      const menu = await t.waitFor((s) => s.includes("Select a checkpoint"));
      const rows = menu.split("\n").filter((l) => / msgs? /.test(l));
      const target = rows.findIndex((l) => l.includes("+1 file"));
      expect(target).toBeGreaterThanOrEqual(0);
      for (let i = 0; i < target; i++) t.send("Down");
      t.send("Enter");
      await t.waitFor((s) => s.includes("Rewind to") && s.includes("Restore code only"));
      t.send("Down");
      t.send("Down");
      t.send("Enter");
      return t.waitFor((s) => s.includes("Changed outside chatcli, skipped unless overwritten"));
    };
    try {
      await t.waitFor((s) => s.includes("Ask anything"));
      t.sendLiteral("write v1");
      t.send("Enter");
      await t.waitFor((s) => s.includes("Wrote v1."));
      writeFileSync(file("notes.md"), "v2 by the user\n");
      let plan = await openPlan();
      expect(plan).toContain("notes.md");
      expect(plan).toContain("Restore and overwrite the files changed outside chatcli");
      t.send("Enter"); // the first option: Restore (skips the conflict)
      await t.waitFor((s) => s.includes("Skipped"));
      expect(readFileSync(file("notes.md"), "utf8")).toBe("v2 by the user\n");
      plan = await openPlan();
      const lines = plan.split("\n");
      const idx = (txt: string) => lines.findIndex((l) => l.includes(txt));
      expect(idx("Restore and overwrite")).toBeGreaterThan(idx("▶"));
      t.send("Down");
      t.send("Enter");
      await t.waitFor((s) => s.includes("Restored 1 file"));
      expect(readFileSync(file("notes.md"), "utf8")).toBe("v0\n");
    } finally {
      t.kill();
    }
  }, 30_000);

  test("CHATCLI_REWIND_ESC_MS widens the double-Esc window (900 ms apart opens the menu only when allowed)", async () => {
    fk.enqueue({ text: "Hello back." });
    const t = start("qa-rw-4.sock", { CHATCLI_REWIND_ESC_MS: "2500" });
    try {
      await t.waitFor((s) => s.includes("Ask anything"));
      t.sendLiteral("hello");
      t.send("Enter");
      await t.waitFor((s) => s.includes("Hello back."));
      t.send("Escape");
      await Bun.sleep(900);
      t.send("Escape");
      await t.waitFor((s) => s.includes("Select a checkpoint"));
    } finally {
      t.kill();
    }
    fk.enqueue({ text: "Hello again." });
    const d = start("qa-rw-5.sock");
    try {
      await d.waitFor((s) => s.includes("Ask anything"));
      d.sendLiteral("hello");
      d.send("Enter");
      await d.waitFor((s) => s.includes("Hello again."));
      d.send("Escape");
      await Bun.sleep(900);
      d.send("Escape");
      await Bun.sleep(500);
      expect(d.capture()).not.toContain("Select a checkpoint");
    } finally {
      d.kill();
    }
  }, 25_000);
});

describe("issue 7: headless checkpoints", () => {
  test("a multi-line, multibyte prompt gives a one-line label of at most 60 characters, cut on a character", async () => {
    fake.enqueue({ text: "fine" });
    const prompt = `Ünïcödé 😀 prompt that goes on and on past sixty characters for sure 🎉🎉🎉\nsecond line`;
    const r = await headless(prompt, {}, ["--output-format", "stream-json"]);
    expect(r.code).toBe(0);
    const cp = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; label?: string }).find((e) => e.type === "checkpoint.saved")!;
    const label = cp.label!;
    expect(label.includes("\n")).toBe(false);
    expect(Array.from(label).length).toBeLessThanOrEqual(60);
    expect(label.startsWith("Ünïcödé 😀 prompt")).toBe(true);
    expect(/[\uD800-\uDBFF]$/.test(label)).toBe(false); // no half of a surrogate pair at the cut
  });
});

// Issue 3: the fallback chain and the OpenAI-compatible family through the compiled binary.
describe("issue 3: providers (compiled binary)", () => {
  let sse: FakeSseServer;
  let ol: FakeOllama;
  beforeAll(() => {
    sse = startFakeSse({ defaultReply: { fixture: "openai-text.sse" } });
    ol = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] }, { name: "backup:1b", contextLength: 32768, capabilities: ["completion"] }], defaultReply: { text: "answer from ollama" } });
  });
  afterAll(() => {
    sse.stop();
    ol.stop();
  });
  const openai = { OPENAI_API_KEY: "sk-test-123456789", INITIAL_BACKOFF: "0.01" };
  const posts = (since: number) => sse.requests.slice(since).filter((q) => q.method === "POST").length;

  test("inside a chain a failing entry gets 2 retries by default (CHATCLI_FALLBACK_MAX_RETRIES changes it); the seed's env form names the primary first; CHATCLI_FALLBACK_MODEL_<ID> picks the entry's model", async () => {
    const dead = startFakeSse({ defaultReply: { status: 500, body: '{"error":{"message":"down"}}' } });
    try {
      const base = { ...openai, OPENAI_BASE_URL: `${dead.url}/v1`, OLLAMA_HOST: ol.url };
      const olSince = ol.chatRequests().length;
      let r = await run(b, ["-p", "hi", "--provider", "OPENAI", "--model", "gpt-4o", "--output-format", "stream-json"], {
        ...base,
        CHATCLI_FALLBACK_PROVIDERS: "OPENAI,OLLAMA",
        CHATCLI_FALLBACK_MODEL_OLLAMA: "backup:1b",
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("answer from ollama");
      expect(dead.requests.filter((q) => q.method === "POST")).toHaveLength(3); // 1 + 2 retries, then the next entry
      expect(ol.chatRequests().slice(olSince).map((q) => q.model)).toEqual(["backup:1b"]);
      const switches = r.stdout.split("\n").filter((l) => l.includes('"provider.switched"'));
      expect(switches).toHaveLength(1);
      expect(switches[0]).toContain("OLLAMA:backup:1b");

      const before = dead.requests.length;
      r = await run(b, ["-p", "hi", "--provider", "OPENAI", "--model", "gpt-4o"], { ...base, CHATCLI_FALLBACK_PROVIDERS: "OLLAMA:qwen3:8b", CHATCLI_FALLBACK_MAX_RETRIES: "0" });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("answer from ollama");
      expect(dead.requests.length - before).toBe(1);
    } finally {
      dead.stop();
    }
  }, 30_000);

  test("settings `fallback: [...]`: an auth error moves on at once (no retry)", async () => {
    const s = isolatedBinary();
    try {
      mkdirSync(s.env.CHATCLI_HOME!, { recursive: true });
      writeFileSync(join(s.env.CHATCLI_HOME!, "settings.json"), JSON.stringify({ fallback: ["CLAUDEAI:claude-sonnet-4-6", "OLLAMA:qwen3:8b"] }));
      const since = sse.requests.length;
      sse.enqueue({ status: 401, body: '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}' });
      const r = await run(s, ["-p", "hi", "--provider", "CLAUDEAI"], { ANTHROPIC_API_KEY: "sk-ant-bad-123456789", ANTHROPIC_BASE_URL: sse.url, OLLAMA_HOST: ol.url, INITIAL_BACKOFF: "0.01" });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("answer from ollama");
      expect(posts(since)).toBe(1);
    } finally {
      s.cleanup();
    }
  }, 20_000);

  for (const [id, keyEnv, model] of [
    ["ZAI", "ZAI_API_KEY", "glm-5"],
    ["MOONSHOT", "MOONSHOT_API_KEY", "kimi-k2.6"],
    ["MINIMAX", "MINIMAX_API_KEY", "MiniMax-M2.7"],
    ["OPENROUTER", "OPENROUTER_API_KEY", "openai/gpt-5.2"],
    ["GITHUB_MODELS", "GH_TOKEN", "gpt-4o"],
  ] as const) {
    test(`${id}: ${keyEnv} and ${id}_BASE_URL reach the server, with the entry's default model`, async () => {
      sse.enqueue({ fixture: "openai-text.sse" });
      const since = sse.requests.length;
      const r = await run(b, ["-p", "hi", "--provider", id], { [keyEnv]: "tok-test-123456789", [`${id}_BASE_URL`]: `${sse.url}/v1` });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const req = sse.requests.slice(since).find((q) => q.method === "POST")!;
      expect(req.path).toBe("/v1/chat/completions");
      expect(req.headers.authorization).toBe("Bearer tok-test-123456789");
      expect((req.body as { model?: unknown }).model).toBe(model);
    });
  }

  test("Ctrl+C (SIGINT) during a 429 Retry-After wait ends the run at once, not after the wait", async () => {
    sse.enqueue({ status: 429, body: '{"error":{"message":"slow down"}}', headers: { "retry-after": "25" } });
    const p = Bun.spawn([b.bin, "-p", "hi", "--provider", "OPENAI", "--model", "gpt-4o", "--output-format", "stream-json"], {
      cwd: b.dir,
      env: { ...b.env, OPENAI_API_KEY: "sk-test-123456789", OPENAI_BASE_URL: `${sse.url}/v1` },
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = p.stdout.getReader();
    let out = "";
    while (!out.includes('"retry')) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    expect(out).toContain("retry");
    p.kill("SIGINT");
    const exited = await Promise.race([p.exited.then(() => true), Bun.sleep(8000).then(() => false)]);
    if (!exited) p.kill(9);
    expect(exited).toBe(true);
  }, 20_000);
});
