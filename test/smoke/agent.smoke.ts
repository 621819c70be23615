// Headless agent runs of the compiled binary against the fake Ollama server: tools, permission modes,
// output formats and exit codes, as a script would use them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentEventSchema } from "../../src/protocol/events.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;
const tools = { name: "coder:7b", contextLength: 16384, capabilities: ["completion", "tools"] };
const plain = { name: "plain:1b", contextLength: 8192, capabilities: ["completion"] };

beforeAll(() => {
  b = isolatedBinary();
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  fake = startFakeOllama({ models: [tools, plain] });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

const env = () => ({ OLLAMA_HOST: fake.url });

describe("headless agent (compiled binary)", () => {
  test("native tools: the model reads a file and answers; json output", async () => {
    writeFileSync(join(b.dir, "config.ini"), "port=8080\n");
    fake.enqueue({ toolCalls: [{ name: "read", arguments: { path: "config.ini" } }], chunks: [] }, { text: "The port is 8080." });
    const r = await run(b, ["-p", "which port?", "--model", "coder:7b", "--output-format", "json"], env());
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ type: "result", subtype: "success", is_error: false, result: "The port is 8080.", num_turns: 2 });
    const second = fake.chatRequests().at(-1)!.messages as Array<{ role: string; content: string; tool_name?: string }>;
    const toolMsg = second.find((m) => m.role === "tool")!;
    expect(toolMsg.tool_name).toBe("read");
    expect(toolMsg.content).toContain("port=8080");
  });

  test("text protocol for a model without native tools", async () => {
    writeFileSync(join(b.dir, "VERSION"), "3.1.4\n");
    fake.enqueue({ text: `<tool_call name="read" args='{"path":"VERSION"}' />` }, { text: "Version 3.1.4." });
    const r = await run(b, ["-p", "what version?", "--model", "plain:1b"], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Version 3.1.4.");
    const req = fake.chatRequests().at(-1)!;
    expect(req.tools).toBeUndefined();
    const msgs = req.messages as Array<{ role: string; content: string }>;
    expect(msgs.some((m) => m.role === "user" && m.content.includes("3.1.4"))).toBe(true);
  });

  test("default mode denies a write with no terminal to ask, and says so; accept-edits allows it", async () => {
    fake.enqueue({ toolCalls: [{ name: "write", arguments: { path: "new.txt", content: "hello" } }], chunks: [] }, { text: "Could not write." });
    const denied = await run(b, ["-p", "create new.txt", "--model", "coder:7b"], env());
    expect(denied.code).toBe(0);
    expect(existsSync(join(b.dir, "new.txt"))).toBe(false);
    expect(denied.stderr).toContain("permission needed");
    fake.enqueue({ toolCalls: [{ name: "write", arguments: { path: "new.txt", content: "hello" } }], chunks: [] }, { text: "Written." });
    const allowed = await run(b, ["-p", "create new.txt", "--model", "coder:7b", "--permission-mode", "accept-edits"], env());
    expect(allowed.code).toBe(0);
    expect(readFileSync(join(b.dir, "new.txt"), "utf8")).toBe("hello");
  });

  test("stream-json: every line is a schema-valid event, first session.started, last turn.completed", async () => {
    fake.enqueue({ text: "streamed answer", chunkCount: 3 });
    const r = await run(b, ["-p", "hi", "--model", "coder:7b", "--output-format", "stream-json"], env());
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    for (const l of lines) expect(agentEventSchema.safeParse(l).success).toBe(true);
    expect(lines[0].type).toBe("session.started");
    expect(lines[0].schemaVersion).toBe(2);
    expect(lines.at(-1).type).toBe("turn.completed");
    expect(lines.filter((l) => l.type === "message.delta").map((l) => l.text).join("")).toBe("streamed answer");
  });

  test("--max-turns stops the agent", async () => {
    for (let i = 0; i < 3; i++) fake.enqueue({ toolCalls: [{ name: "glob", arguments: { pattern: `*${i}` } }], chunks: [] });
    const r = await run(b, ["-p", "loop", "--model", "coder:7b", "--max-turns", "2", "--output-format", "json"], env());
    expect(JSON.parse(r.stdout).stop_reason).toBe("max_turns");
    fake.requests.length = 0;
  });

  test("Ctrl+C (SIGINT) interrupts a streaming run: exit code 130", async () => {
    fake.enqueue({ text: "a slow answer that takes a while", chunkCount: 30, chunkDelayMs: 100 });
    const proc = Bun.spawn([b.bin, "-p", "slow", "--model", "coder:7b"], { cwd: b.dir, env: { ...b.env, ...env() }, stdout: "pipe", stderr: "pipe" });
    const reader = proc.stdout.getReader();
    await reader.read(); // first bytes of the answer arrived
    proc.kill("SIGINT");
    const code = await proc.exited;
    expect(code).toBe(130);
  });
});
