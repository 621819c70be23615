// Native tool round trips through the compiled binary, one per wire protocol: the model calls `read`, the
// result goes back in that provider's own format, the model answers. Plus a user-defined OpenAI-compatible
// server from settings, Copilot's device-flow login followed by a chat, and Retry-After in the binary.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeSse, type FakeSseServer } from "../support/fake-sse-servers.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let sse: FakeSseServer;

beforeAll(() => {
  b = isolatedBinary();
  sse = startFakeSse({ json: { "/v1/models": [{ body: { object: "list", data: [{ id: "local-coder", object: "model" }] } }] } });
  writeFileSync(join(b.dir, "config.ini"), "port=8080\n");
});
afterAll(() => {
  sse.stop();
  b.cleanup();
});

type Body = Record<string, unknown>;
const oaChunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}`;
const openAiToolCall = () => ({
  events: [
    oaChunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_r1", type: "function", function: { name: "read", arguments: "" } }] }),
    oaChunk({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
    oaChunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"config.ini"}' } }] }),
    oaChunk({}, "tool_calls"),
    "data: [DONE]",
  ],
});
const openAiAnswer = () => ({ events: [oaChunk({ role: "assistant", content: "The port is " }), oaChunk({ content: "8080." }), oaChunk({}, "stop"), "data: [DONE]"] });

const an = (type: string, d: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...d })}`;
const anStart = () => an("message_start", { message: { id: "m", type: "message", role: "assistant", model: "claude-sonnet-4-6", content: [], usage: { input_tokens: 10, output_tokens: 1 } } });
const anthropicToolCall = () => ({
  events: [
    anStart(),
    an("content_block_start", { index: 0, content_block: { type: "tool_use", id: "toolu_r1", name: "read", input: {} } }),
    an("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: '{"path": "conf' } }),
    an("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: 'ig.ini"}' } }),
    an("content_block_stop", { index: 0 }),
    an("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 5 } }),
    an("message_stop", {}),
  ],
});
const anthropicAnswer = () => ({
  events: [
    anStart(),
    an("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    an("content_block_delta", { index: 0, delta: { type: "text_delta", text: "The port is 8080." } }),
    an("content_block_stop", { index: 0 }),
    an("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 5 } }),
    an("message_stop", {}),
  ],
});
const gem = (parts: unknown[]) => `data: ${JSON.stringify({ candidates: [{ content: { parts, role: "model" }, index: 0, finishReason: "STOP" }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 3, totalTokenCount: 13 } })}`;

async function ask(args: string[], env: Record<string, string>) {
  const before = sse.streamBodies().length;
  const r = await run(b, ["-p", "which port?", "--output-format", "json", ...args], env);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ result: "The port is 8080.", num_turns: 2, is_error: false });
  const bodies = sse.streamBodies().slice(before);
  expect(bodies.length).toBe(2);
  return bodies as Body[];
}

describe("native tool round trips (compiled binary)", () => {
  test("OPENAI: tool_calls streamed in pieces, the result goes back as role tool with tool_call_id", async () => {
    sse.enqueue(openAiToolCall(), openAiAnswer());
    const [first, second] = await ask(["--provider", "openai", "--model", "gpt-4o"], { OPENAI_API_KEY: "sk-test-1234567", OPENAI_BASE_URL: `${sse.url}/v1` });
    expect((first!.tools as Array<{ function: { name: string } }>).some((t) => t.function.name === "read")).toBe(true);
    const msgs = second!.messages as Array<Record<string, unknown>>;
    expect(msgs.find((m) => m.role === "assistant")).toMatchObject({ tool_calls: [{ id: "call_r1", type: "function", function: { name: "read", arguments: '{"path":"config.ini"}' } }] });
    const tool = msgs.find((m) => m.role === "tool")!;
    expect(tool.tool_call_id).toBe("call_r1");
    expect(String(tool.content)).toContain("port=8080");
  });

  test("CLAUDEAI: tool_use from input_json_delta pieces, the result goes back as a tool_result block", async () => {
    sse.enqueue(anthropicToolCall(), anthropicAnswer());
    const [first, second] = await ask(["--provider", "claudeai"], { ANTHROPIC_API_KEY: "sk-ant-test-1234567", ANTHROPIC_BASE_URL: sse.url });
    expect((first!.tools as Array<{ name: string; input_schema: unknown }>).some((t) => t.name === "read" && !!t.input_schema)).toBe(true);
    const msgs = second!.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(msgs[1]).toMatchObject({ role: "assistant", content: [{ type: "tool_use", id: "toolu_r1", name: "read", input: { path: "config.ini" } }] });
    const result = msgs[2]!.content.find((c) => c.type === "tool_result")!;
    expect(result.tool_use_id).toBe("toolu_r1");
    expect(JSON.stringify(result.content)).toContain("port=8080");
    expect(JSON.stringify(second!.system)).toContain("cache_control");
  });

  test("GOOGLEAI: functionCall in, functionResponse back in the next user turn", async () => {
    sse.enqueue({ events: [gem([{ functionCall: { name: "read", args: { path: "config.ini" } } }])] }, { events: [gem([{ text: "The port is 8080." }])] });
    const [first, second] = await ask(["--provider", "googleai", "--model", "gemini-2.5-flash"], { GOOGLEAI_API_KEY: "AIza-test-1234567", GOOGLE_GEMINI_BASE_URL: sse.url });
    expect(JSON.stringify(first!.tools)).toContain('"name":"read"');
    const contents = second!.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
    expect(contents[1]).toMatchObject({ role: "model", parts: [{ functionCall: { name: "read", args: { path: "config.ini" } } }] });
    const response = contents[2]!.parts.find((p) => p.functionResponse) as { functionResponse: { name: string; response: unknown } };
    expect(response.functionResponse.name).toBe("read");
    expect(JSON.stringify(response.functionResponse.response)).toContain("port=8080");
  });

  test("XAI (OpenAI-compatible entry): its own key and XAI_BASE_URL, native tools", async () => {
    sse.enqueue(openAiToolCall(), openAiAnswer());
    const [first, second] = await ask(["--provider", "xai"], { XAI_API_KEY: "xai-test-1234567", XAI_BASE_URL: `${sse.url}/v1` });
    expect(first!.model).toBe("grok-4-1");
    expect((second!.messages as Array<Record<string, unknown>>).some((m) => m.role === "tool" && m.tool_call_id === "call_r1")).toBe(true);
    expect(sse.requests.at(-1)!.headers.authorization).toBe("Bearer xai-test-1234567");
  });

  test("a user-defined openai-compatible server from settings: listed by `chatcli providers`, used with tools", async () => {
    mkdirSync(join(b.home, ".chatcli"), { recursive: true });
    writeFileSync(join(b.home, ".chatcli", "settings.json"), JSON.stringify({ providers: { openaiCompatible: [{ name: "lmstudio", baseUrl: `${sse.url}/v1`, models: ["local-coder"] }] } }));
    try {
      const list = await run(b, ["providers"], {});
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(/✓\s+LMSTUDIO\s+lmstudio\s+local-coder/);
      sse.enqueue(openAiToolCall(), openAiAnswer());
      const [first] = await ask(["--provider", "lmstudio"], {});
      expect(first!.model).toBe("local-coder");
    } finally {
      writeFileSync(join(b.home, ".chatcli", "settings.json"), "{}");
    }
  });
});

describe("Copilot device flow (compiled binary)", () => {
  test("`chatcli auth login copilot` stores the token 0600; the next run exchanges it and chats", async () => {
    const gh = startFakeSse({
      json: {
        "/login/device/code": [{ body: { device_code: "dev-1", user_code: "WXYZ-1234", verification_uri: "https://github.com/login/device", expires_in: 900, interval: 0 } }],
        "/login/oauth/access_token": [{ body: { error: "authorization_pending" } }, { body: { access_token: "gho_fake_token", token_type: "bearer" } }],
        "/copilot_internal/v2/token": [{ body: { token: "copilot-api-token", expires_at: Math.floor(Date.now() / 1000) + 1800 } }],
      },
    });
    try {
      const env = { COPILOT_GITHUB_BASE_URL: gh.url, COPILOT_GITHUB_API_URL: gh.url, COPILOT_BASE_URL: gh.url };
      const login = await run(b, ["auth", "login", "copilot"], env);
      expect(login.code).toBe(0);
      expect(login.stdout).toContain("WXYZ-1234");
      const path = join(b.home, ".chatcli", "auth", "copilot.json");
      expect(existsSync(path)).toBe(true);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      gh.enqueue({ events: [oaChunk({ role: "assistant", content: "hello from copilot" }), oaChunk({}, "stop"), "data: [DONE]"] });
      const chat = await run(b, ["-p", "hi", "--provider", "copilot"], env);
      expect(chat.stderr).toBe("");
      expect(chat.code).toBe(0);
      expect(chat.stdout).toContain("hello from copilot");
      const post = gh.requests.find((r) => r.path === "/chat/completions")!;
      expect(post.headers.authorization).toBe("Bearer copilot-api-token");
      expect(gh.requests.find((r) => r.path === "/copilot_internal/v2/token")!.headers.authorization).toBe("token gho_fake_token");
    } finally {
      gh.stop();
    }
  });
});

describe("retry policy (compiled binary)", () => {
  test("OLLAMA 429 with Retry-After: the wait is the server's, not the 3 s backoff", async () => {
    const ollama: FakeOllama = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192, capabilities: ["completion"] }], defaultReply: { text: "after the wait" } });
    try {
      ollama.enqueue({ status: 429, errorBody: '{"error":"rate limited"}', headers: { "retry-after": "0.25" } });
      const r = await run(b, ["-p", "hi", "--model", "qwen3:8b"], { OLLAMA_HOST: ollama.url });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("after the wait");
      expect(r.stderr).toContain("rate_limit, retrying in 0.3s (attempt 1)");
    } finally {
      ollama.stop();
    }
  });
});
