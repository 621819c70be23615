// `chatcli acp` (issue 22) driven as an editor drives it: the compiled binary, the ACP SDK's client side on its
// stdin/stdout, the fake Ollama behind it scripting tool calls.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ClientContext, RequestPermissionRequest, RequestPermissionResponse, SessionNotification } from "@agentclientprotocol/sdk";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;
const model = { name: "coder:7b", contextLength: 16384, capabilities: ["completion", "tools"] };

beforeAll(() => {
  b = isolatedBinary();
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  fake = startFakeOllama({ models: [model] });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

/** Everything the client saw, in arrival order: notifications and the agent's requests to it. */
type Seen =
  | { kind: "update"; n: SessionNotification }
  | { kind: "permission"; req: RequestPermissionRequest }
  | { kind: "read"; path: string }
  | { kind: "write"; path: string; content: string };

interface Editor {
  agent: ClientContext;
  seen: Seen[];
  stderr(): string;
  /** Answer for the next permission request (by option kind). */
  answer: "allow_once" | "reject_once" | "cancelled";
  /** What the editor's buffers hold (fs/read_text_file answers from here, else the disk). */
  buffers: Map<string, string>;
  updates(sessionId: string): SessionNotification["update"][];
  waitFor(pred: (s: Seen) => boolean, timeoutMs?: number): Promise<Seen>;
  end(): Promise<number>;
}

async function startEditor(fs: boolean, extraArgs: string[] = []): Promise<Editor> {
  const acp = await import("@agentclientprotocol/sdk");
  const proc = Bun.spawn([b.bin, "acp", "--model", "coder:7b", ...extraArgs], { cwd: b.dir, env: { ...b.env, OLLAMA_HOST: fake.url }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  let err = "";
  void new Response(proc.stderr).text().then((t) => (err = t));
  const seen: Seen[] = [];
  const wakers: Array<() => void> = [];
  const push = (s: Seen) => {
    seen.push(s);
    for (const w of wakers.splice(0)) w();
  };
  const ed: Partial<Editor> & { buffers: Map<string, string>; answer: Editor["answer"] } = { buffers: new Map(), answer: "allow_once" };
  const app = acp
    .client({ name: "test-editor" })
    .onNotification("session/update", ({ params }) => push({ kind: "update", n: params }))
    .onRequest("session/request_permission", ({ params }): RequestPermissionResponse => {
      push({ kind: "permission", req: params });
      if (ed.answer === "cancelled") return { outcome: { outcome: "cancelled" } };
      const opt = params.options.find((o) => o.kind === ed.answer)!;
      return { outcome: { outcome: "selected", optionId: opt.optionId } };
    })
    .onRequest("fs/read_text_file", ({ params }) => {
      push({ kind: "read", path: params.path });
      return { content: ed.buffers.get(params.path) ?? readFileSync(params.path, "utf8") };
    })
    .onRequest("fs/write_text_file", ({ params }) => {
      push({ kind: "write", path: params.path, content: params.content });
      writeFileSync(params.path, params.content); // the editor saves its buffer
      return {};
    });
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      proc.stdin.write(chunk);
      proc.stdin.flush();
    },
    close() {
      proc.stdin.end();
    },
  });
  const conn = app.connect(acp.ndJsonStream(output, proc.stdout));
  const init = await conn.agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: fs ? { fs: { readTextFile: true, writeTextFile: true } } : {}, clientInfo: { name: "test-editor", version: "1" } });
  expect(init.protocolVersion).toBe(1);
  return Object.assign(ed, {
    agent: conn.agent,
    seen,
    stderr: () => err,
    updates: (sessionId: string) => seen.flatMap((s) => (s.kind === "update" && s.n.sessionId === sessionId ? [s.n.update] : [])),
    async waitFor(pred: (s: Seen) => boolean, timeoutMs = 20_000): Promise<Seen> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = seen.find(pred);
        if (hit) return hit;
        if (Date.now() > deadline) throw new Error(`timed out; saw ${JSON.stringify(seen.slice(-4))}\nstderr: ${err}`);
        await new Promise<void>((r) => {
          wakers.push(r);
          setTimeout(r, 200);
        });
      }
    },
    async end() {
      conn.close();
      proc.stdin.end();
      return proc.exited;
    },
  }) as Editor;
}

let savedSessionId = "";

describe("chatcli acp (compiled binary, the SDK's client side)", () => {
  test("initialize states what works; a prompt with tool calls streams updates in order, asks permission, uses the editor's fs", async () => {
    const acp = await import("@agentclientprotocol/sdk");
    const proc = Bun.spawn([b.bin, "acp"], { cwd: b.dir, env: { ...b.env, OLLAMA_HOST: fake.url }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
    proc.stdin.end();
    const raw = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    // stdout carries protocol frames only.
    const lines = raw.split("\n").filter(Boolean);
    expect(lines.length).toBe(1);
    const init = JSON.parse(lines[0]!) as { id: number; result: Record<string, unknown> };
    expect(init.result).toMatchObject({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: true, promptCapabilities: { image: false, embeddedContext: true }, mcpCapabilities: { http: true, sse: true } },
      authMethods: [],
      agentInfo: { name: "chatcli" },
    });

    const ed = await startEditor(true);
    const created = await ed.agent.request("session/new", { cwd: b.dir, mcpServers: [] });
    const sessionId = created.sessionId;
    savedSessionId = sessionId;
    expect(created.modes?.currentModeId).toBe("default");
    expect(created.modes?.availableModes.map((m) => m.id)).toEqual(["default", "accept-edits", "plan"]);

    writeFileSync(join(b.dir, "notes.txt"), "text on disk\n");
    ed.buffers.set(join(b.dir, "notes.txt"), "unsaved editor text\n");
    fake.enqueue(
      { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }], chunks: [] },
      { toolCalls: [{ name: "write", arguments: { path: "hello.txt", content: "hi there" } }], chunks: [] },
      { text: "Done writing." },
    );
    const res = await ed.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "read notes, create hello.txt" }] });
    expect(res.stopReason).toBe("end_turn");

    // The read went through the editor (its unsaved buffer is what the model got); the write too, after permission.
    expect(ed.seen.some((s) => s.kind === "read" && s.path === join(b.dir, "notes.txt"))).toBe(true);
    const toolResult = JSON.stringify(fake.chatRequests()[1]!.messages);
    expect(toolResult).toContain("unsaved editor text");
    expect(toolResult).not.toContain("text on disk");
    const wrote = ed.seen.find((s) => s.kind === "write");
    expect(wrote).toMatchObject({ path: join(b.dir, "hello.txt"), content: "hi there" });
    expect(readFileSync(join(b.dir, "hello.txt"), "utf8")).toBe("hi there");

    // Order: tool_call(write) → permission request → the write → tool_call_update completed → the answer text.
    const idx = (pred: (s: Seen) => boolean) => ed.seen.findIndex(pred);
    const writeCall = idx((s) => s.kind === "update" && s.n.update.sessionUpdate === "tool_call" && s.n.update.kind === "edit");
    const perm = idx((s) => s.kind === "permission");
    const fsWrite = idx((s) => s.kind === "write");
    const writeCallId = (ed.seen[writeCall] as { n: SessionNotification }).n.update as { toolCallId: string; locations?: Array<{ path: string }>; content?: Array<{ type: string; newText?: string }> };
    const writeDone = idx((s) => s.kind === "update" && s.n.update.sessionUpdate === "tool_call_update" && s.n.update.toolCallId === writeCallId.toolCallId && s.n.update.status === "completed");
    const answer = idx((s) => s.kind === "update" && s.n.update.sessionUpdate === "agent_message_chunk");
    expect(writeCall).toBeGreaterThan(-1);
    expect([writeCall < perm, perm < fsWrite, fsWrite < writeDone, writeDone < answer]).toEqual([true, true, true, true]);
    expect(writeCallId.locations?.[0]?.path).toBe(join(b.dir, "hello.txt"));
    expect(writeCallId.content?.[0]).toMatchObject({ type: "diff", newText: "hi there" });
    const readCall = ed.updates(sessionId).find((u) => u.sessionUpdate === "tool_call" && u.kind === "read");
    expect(readCall).toBeDefined();
    const permReq = (ed.seen[perm] as { req: RequestPermissionRequest }).req;
    expect(permReq.toolCall.toolCallId).toBe(writeCallId.toolCallId);
    expect(permReq.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once", "reject_always"]);
    const text = ed.updates(sessionId).flatMap((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : [])).join("");
    expect(text).toBe("Done writing.");
    // The user's own prompt is not echoed live.
    expect(ed.updates(sessionId).some((u) => u.sessionUpdate === "user_message_chunk")).toBe(false);
    expect(await ed.end()).toBe(0);
  }, 90_000);

  test("session/load in a new process replays the saved conversation before it answers", async () => {
    expect(savedSessionId).not.toBe("");
    const ed = await startEditor(false);
    const loaded = await ed.agent.request("session/load", { sessionId: savedSessionId, cwd: b.dir, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe("default");
    // Everything below arrived before the load response resolved.
    const ups = ed.updates(savedSessionId);
    const kinds = ups.map((u) => u.sessionUpdate);
    expect(kinds[0]).toBe("user_message_chunk");
    const user = ups[0] as { content: { type: string; text: string } };
    expect(user.content.text).toContain("read notes, create hello.txt");
    const calls = ups.filter((u) => u.sessionUpdate === "tool_call") as Array<{ toolCallId: string; kind: string }>;
    expect(calls.map((c) => c.kind)).toEqual(["read", "edit"]);
    for (const c of calls) expect(ups.some((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === c.toolCallId && u.status === "completed")).toBe(true);
    const last = ups.at(-1) as { sessionUpdate: string; content: { text: string } };
    expect(last).toMatchObject({ sessionUpdate: "agent_message_chunk", content: { text: "Done writing." } });

    // The resumed session goes on: a prompt in it sees the earlier conversation.
    fake.enqueue({ text: "still here" });
    const res = await ed.agent.request("session/prompt", { sessionId: savedSessionId, prompt: [{ type: "text", text: "again" }] });
    expect(res.stopReason).toBe("end_turn");
    expect(JSON.stringify(fake.chatRequests().at(-1)!.messages)).toContain("read notes, create hello.txt");
    expect(await ed.end()).toBe(0);
  }, 90_000);

  test("cancel mid-turn resolves the prompt `cancelled`; a refused permission denies; modes switch; bypass is refused", async () => {
    const ed = await startEditor(false);
    const { sessionId } = await ed.agent.request("session/new", { cwd: b.dir, mcpServers: [] });

    fake.enqueue({ text: "slow ".repeat(400), chunkCount: 400, chunkDelayMs: 20 });
    const pending = ed.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "talk slowly" }] });
    await ed.waitFor((s) => s.kind === "update" && s.n.update.sessionUpdate === "agent_message_chunk");
    await ed.agent.notify("session/cancel", { sessionId });
    expect((await pending).stopReason).toBe("cancelled");

    // A rejected permission: the file is not written, the turn ends normally.
    ed.answer = "reject_once";
    fake.enqueue({ toolCalls: [{ name: "write", arguments: { path: "denied.txt", content: "no" } }], chunks: [] }, { text: "ok, not writing" });
    const res = await ed.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write denied.txt" }] });
    expect(res.stopReason).toBe("end_turn");
    expect(ed.seen.some((s) => s.kind === "permission")).toBe(true);
    expect(existsSync(join(b.dir, "denied.txt"))).toBe(false);
    const failed = ed.updates(sessionId).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed");
    expect(failed).toBeDefined();

    // Modes: accept-edits lets the write through without a permission request.
    await ed.agent.request("session/set_mode", { sessionId, modeId: "accept-edits" });
    await ed.waitFor((s) => s.kind === "update" && s.n.update.sessionUpdate === "current_mode_update" && s.n.update.currentModeId === "accept-edits");
    const asksBefore = ed.seen.filter((s) => s.kind === "permission").length;
    fake.enqueue({ toolCalls: [{ name: "write", arguments: { path: "auto.txt", content: "auto" } }], chunks: [] }, { text: "written" });
    await ed.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write auto.txt" }] });
    expect(readFileSync(join(b.dir, "auto.txt"), "utf8")).toBe("auto");
    expect(ed.seen.filter((s) => s.kind === "permission").length).toBe(asksBefore);
    await expect(ed.agent.request("session/set_mode", { sessionId, modeId: "bypass" })).rejects.toThrow();
    expect(await ed.end()).toBe(0);
  }, 90_000);

  test("the editor's MCP servers (session/new mcpServers, stdio) join the session: their tools are offered and run", async () => {
    const echoServer = join(import.meta.dir, "..", "support", "mcp-echo-server.ts");
    const ed = await startEditor(false);
    const { sessionId } = await ed.agent.request("session/new", { cwd: b.dir, mcpServers: [{ name: "acp echo", command: process.execPath, args: [echoServer], env: [] }] });
    const before = fake.chatRequests().length;
    fake.enqueue({ toolCalls: [{ name: "mcp__acp_echo__echo", arguments: { text: "ping from the editor's server" } }], chunks: [] }, { text: "echoed" });
    const res = await ed.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo something" }] });
    expect(res.stopReason).toBe("end_turn");
    const tools = ((fake.chatRequests()[before]!.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((t) => t.function.name);
    expect(tools).toContain("mcp__acp_echo__echo");
    const done = ed.updates(sessionId).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
    expect(JSON.stringify(done)).toContain("ping from the editor's server");
    expect(await ed.end()).toBe(0);
  }, 90_000);

  test("--permission-mode bypass is a usage error; --help prints usage", async () => {
    const bad = Bun.spawnSync([b.bin, "acp", "--permission-mode", "bypass"], { cwd: b.dir, env: b.env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout.toString()).toBe("");
    const help = Bun.spawnSync([b.bin, "acp", "--help"], { cwd: b.dir, env: b.env });
    expect(help.exitCode).toBe(0);
    expect(help.stdout.toString()).toContain("chatcli acp");
  });
});
