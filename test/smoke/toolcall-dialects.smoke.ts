// A model without native tools (fake Ollama, text protocol) through the compiled binary: calls in two different
// dialects both run and are labelled with `recoveredFrom`; prose that only mentions a call runs nothing; a call
// to a tool we do not offer comes back as an error result, never as another tool.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentEventSchema } from "../../src/protocol/events.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;
const plain = { name: "plain:1b", contextLength: 8192, capabilities: ["completion"] };

beforeAll(() => {
  b = isolatedBinary();
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  fake = startFakeOllama({ models: [plain] });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

const env = () => ({ OLLAMA_HOST: fake.url });

async function streamJson(prompt: string): Promise<Array<Record<string, unknown>>> {
  const r = await run(b, ["-p", prompt, "--model", "plain:1b", "--output-format", "stream-json"], env());
  expect(r.code).toBe(0);
  const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  for (const l of lines) expect(agentEventSchema.safeParse(l).success).toBe(true);
  return lines;
}

describe("tool-call dialects (compiled binary, text protocol)", () => {
  test("a harmony call and a Cline-style call in one reply both run, each labelled with its dialect", async () => {
    writeFileSync(join(b.dir, "alpha.txt"), "ALPHA-CONTENT\n");
    writeFileSync(join(b.dir, "beta.txt"), "BETA-CONTENT\n");
    const before = fake.chatRequests().length;
    fake.enqueue(
      {
        text: 'Reading both.\n<|channel|>commentary to=functions.read <|constrain|>json<|message|>{"path":"alpha.txt"}<|call|>\n<read_file>\n<path>beta.txt</path>\n</read_file>',
        chunkCount: 9,
      },
      { text: "Both files read." },
    );
    const lines = await streamJson("read alpha and beta");
    const started = lines.filter((l) => l.type === "tool.started");
    expect(started.map((l) => [l.name, (l.args as { path: string }).path, l.recoveredFrom])).toEqual([
      ["read", "alpha.txt", "harmony"],
      ["read", "beta.txt", "cline-xml"],
    ]);
    const completed = lines.filter((l) => l.type === "tool.completed");
    expect(completed.map((l) => l.isError)).toEqual([false, false]);
    // both results went back to the model
    const second = fake.chatRequests()[before + 1]!.messages as Array<{ role: string; content: string }>;
    const fed = second.map((m) => m.content).join("\n");
    expect(fed).toContain("ALPHA-CONTENT");
    expect(fed).toContain("BETA-CONTENT");
    // the transcript never shows the markup
    const done = lines.find((l) => l.type === "message.completed") as { displayText?: string };
    expect(done.displayText).toBe("Reading both.");
    const first = JSON.stringify(fake.chatRequests()[before]);
    console.log(`first request of a text-protocol run: ${first.length} bytes`);
  });

  test("prose that shows or mentions a call runs nothing", async () => {
    writeFileSync(join(b.dir, "secret.txt"), "SECRET\n");
    fake.enqueue({
      text: 'I would call read(path="secret.txt") but you asked me not to.\nThe syntax is `<tool_call name="read" args=\'{"path":"secret.txt"}\' />`, for example:\n```python\nread(path="secret.txt")\n```\n> <read_file><path>secret.txt</path></read_file>',
    });
    const lines = await streamJson("explain, do not read");
    expect(lines.filter((l) => l.type === "tool.started")).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain("SECRET\\n");
  });

  test("a call to a tool that is not offered is an error result, not another tool", async () => {
    fake.enqueue({ text: '<|channel|>commentary to=functions.browser.search<|message|>{"query":"bun"}<|call|>' }, { text: "No browser." });
    const lines = await streamJson("search the web");
    const started = lines.filter((l) => l.type === "tool.started");
    expect(started.map((l) => l.name)).toEqual(["browser.search"]);
    const completed = lines.filter((l) => l.type === "tool.completed");
    expect(completed.map((l) => l.isError)).toEqual([true]);
  });
});
