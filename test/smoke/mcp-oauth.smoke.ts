// OAuth end to end through the compiled binary (issue 17): a remote MCP server behind a local OAuth authorization
// server needs a login; `chatcli mcp login` completes it (the test plays the browser); then a scripted model calls the
// server's tool with the stored token, and after every access token expires the next run refreshes it (no new login).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";
import { startOAuthMcpServer, type OAuthMcpServer } from "../support/oauth-mcp-server.ts";

let b: BinaryEnv;
let fake: FakeOllama;
let oauth: OAuthMcpServer;
const model = { name: "coder:7b", contextLength: 32768, capabilities: ["completion", "tools"] };

beforeAll(async () => {
  b = isolatedBinary();
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  fake = startFakeOllama({ models: [model] });
  oauth = await startOAuthMcpServer();
  mkdirSync(join(b.home, ".chatcli"), { recursive: true });
  writeFileSync(join(b.home, ".chatcli", "coder_policy.json"), JSON.stringify({ rules: [{ pattern: "mcp__secure__*", action: "allow" }] }));
  writeFileSync(join(b.home, ".chatcli", "settings.json"), JSON.stringify({ mcpServers: { secure: { type: "http", url: oauth.url } } }));
});
afterAll(() => {
  fake.stop();
  oauth.stop();
  b.cleanup();
});

const toolResult = (req: Record<string, unknown> | undefined) => ((req?.messages as Array<{ role: string; content: string }> | undefined) ?? []).filter((m) => m.role === "tool").at(-1)?.content;
const toolNames = (req: Record<string, unknown> | undefined) => ((req?.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((t) => t.function.name);

async function login(): Promise<void> {
  const proc = Bun.spawn([b.bin, "mcp", "login", "secure"], { cwd: b.dir, env: { ...b.env, CHATCLI_NO_BROWSER: "1" }, stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!/^https?:\/\/\S+$/m.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`login printed no URL: ${out}`);
    out += new TextDecoder().decode(value);
  }
  const auth = await fetch(/^(https?:\/\/\S+)$/m.exec(out)![1]!, { redirect: "manual" });
  await fetch(auth.headers.get("location")!);
  expect(await proc.exited).toBe(0);
}

describe("MCP OAuth (compiled binary)", () => {
  test("before login the server's tools are not offered; after `mcp login` the model calls them; expired tokens are refreshed", async () => {
    fake.enqueue({ text: "No tool." });
    let before = fake.chatRequests().length;
    const first = await run(b, ["-p", "who am i", "--model", "coder:7b"], { OLLAMA_HOST: fake.url });
    expect(first.code).toBe(0);
    expect(toolNames(fake.chatRequests()[before]).some((n) => n.startsWith("mcp__secure__"))).toBe(false);

    await login();
    fake.enqueue({ toolCalls: [{ name: "mcp__secure__whoami", arguments: {} }], chunks: [] }, { text: "Done." });
    before = fake.chatRequests().length;
    const second = await run(b, ["-p", "who am i", "--model", "coder:7b"], { OLLAMA_HOST: fake.url });
    expect(second.code).toBe(0);
    expect(toolResult(fake.chatRequests().slice(before)[1])).toMatch(/^client [0-9a-f-]{36}/);

    oauth.expireAccessTokens();
    fake.enqueue({ toolCalls: [{ name: "mcp__secure__whoami", arguments: {} }], chunks: [] }, { text: "Done again." });
    before = fake.chatRequests().length;
    const third = await run(b, ["-p", "who am i", "--model", "coder:7b"], { OLLAMA_HOST: fake.url });
    expect(third.code).toBe(0);
    expect(toolResult(fake.chatRequests().slice(before)[1])).toMatch(/^client /);
    expect(oauth.counts.refreshes).toBeGreaterThanOrEqual(1);
    expect(oauth.counts.authorizations).toBe(1);
  }, 90_000);
});
