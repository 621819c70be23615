/**
 * The MCP runtime against real servers: the SDK-written test server over stdio (child processes) and over
 * Streamable HTTP / HTTP+SSE on 127.0.0.1, plus misbehaving variants, and server-everything over stdio.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpManager, type McpBinding } from "../../src/mcp/runtime/mcp-manager.ts";
import type { McpServerSpec } from "../../src/mcp/load-servers.ts";
import type { McpServerConfig, McpServerScope } from "../../src/mcp/server-config.ts";
import type { ToolContext, ToolDefinition } from "../../src/tool/tool.ts";
import { startSseOnlyServer, startStreamableServer, type RunningHttpServer } from "./fixtures/http-test-servers.ts";

const FIXTURE = join(import.meta.dir, "fixtures", "mcp-test-server.ts");
const BUN = process.execPath;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function stdio(args: string[] = [], extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { command: BUN, args: [FIXTURE, ...args], ...extra } as McpServerConfig;
}

function manager(servers: Record<string, McpServerConfig>, o: { binding?: Partial<McpBinding>; scope?: McpServerScope; home?: string; projectRoot?: string; env?: Record<string, string> } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "mcp-rt-"));
  const logs: string[] = [];
  const warnings: string[] = [];
  const specs: McpServerSpec[] = Object.entries(servers).map(([name, entry]) => ({ name, entry, scope: o.scope ?? "user", source: "test" }));
  const m = new McpManager({
    servers: specs,
    projectRoot: o.projectRoot ?? dir,
    home: o.home ?? join(dir, "home"),
    env: { ...process.env, ...(o.env ?? {}) },
    baseEnv: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? dir, ...(o.env ?? {}) },
    clientVersion: "test",
    log: (l) => logs.push(l),
    warn: (w) => warnings.push(w),
    binding: () => ({ providerId: "OLLAMA", nativeTools: true, contextWindow: 200_000, ...o.binding }),
    restartBaseMs: 50,
  });
  cleanups.push(() => m.dispose());
  return { m, logs, warnings, dir };
}

function ctx(dir: string, signal = new AbortController().signal): ToolContext & { saved: string[] } {
  const saved: string[] = [];
  return {
    projectRoot: dir,
    cwd: dir,
    paths: undefined as never,
    signal,
    callId: "c1",
    env: {},
    saved,
    saveOverflow: (text) => {
      const p = join(dir, `overflow-${saved.length}.txt`);
      writeFileSync(p, text);
      saved.push(p);
      return p;
    },
  };
}

function tool(m: McpManager, name: string): ToolDefinition {
  const t = m.find(name);
  if (!t) throw new Error(`no tool ${name}; have ${m.allTools().map((x) => x.name).join(", ")}`);
  return t;
}

async function waitFor(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("MCP over stdio (the SDK-written test server)", () => {
  test("tools become mcp__<server>__<tool>; text, image, embedded resource and isError results", async () => {
    const { m, dir } = manager({ t: stdio() });
    await m.ready();
    expect(m.status()[0]).toMatchObject({ name: "t", state: "connected", transport: "stdio" });
    expect(m.status()[0]!.tokens).toBeGreaterThan(0);
    const names = m.tools().map((t) => t.name);
    expect(names).toContain("mcp__t__echo");
    expect(names).toContain("mcp__t__add");
    expect(tool(m, "mcp__t__echo").spec().parameters).toMatchObject({ type: "object", properties: { text: { type: "string" } } });
    expect(await tool(m, "mcp__t__echo").run({ text: "hi" }, ctx(dir))).toMatchObject({ text: "echo: hi" });
    const img = await tool(m, "mcp__t__image").run({}, ctx(dir));
    expect(img.text).toContain("here is the image");
    expect(img.text).toMatch(/\[image: image\/png, \d+ B\]/);
    expect((await tool(m, "mcp__t__resource").run({}, ctx(dir))).text).toContain("[resource: test://doc/readme, text/plain]\nembedded resource body");
    const fail = await tool(m, "mcp__t__fail").run({}, ctx(dir));
    expect(fail.isError).toBe(true);
    expect(fail.text).toContain("failed on purpose");
    expect(tool(m, "mcp__t__add").readOnly).toBe(true);
  });

  test("a huge result is capped and the full text spills to a file", async () => {
    const { m, dir } = manager({ t: stdio() });
    await m.ready();
    const c = ctx(dir);
    const r = await tool(m, "mcp__t__huge").run({ chars: 200_000 }, c);
    expect(r.text.length).toBeLessThan(40_000);
    expect(r.text).toContain("[TRUNCATED");
    expect(c.saved.length).toBe(1);
    expect(readFileSync(c.saved[0]!, "utf8").length).toBe(200_000);
    expect(r.details?.savedPath).toBe(c.saved[0]);
  });

  test("garbage on stdout is logged and skipped", async () => {
    const { m, dir, logs } = manager({ noisy: stdio(["--garbage"]) });
    await m.ready();
    expect(m.status()[0]!.state).toBe("connected");
    expect((await tool(m, "mcp__noisy__echo").run({ text: "still works" }, ctx(dir))).text).toBe("echo: still works");
    expect(logs.some((l) => l.includes("not JSON-RPC, skipped") && l.includes("Welcome to the noisy server"))).toBe(true);
    expect(logs.some((l) => l.includes("stderr: test server starting"))).toBe(true);
  });

  test("a slow start: failed past its timeoutMs, connected within it", async () => {
    const { m } = manager({ late: stdio(["--start-delay", "1500"], { timeoutMs: 400 }), patient: stdio(["--start-delay", "300"], { timeoutMs: 20_000 }) });
    await m.ready();
    const [late, patient] = m.status();
    expect(late).toMatchObject({ state: "failed" });
    expect(late!.reason).toContain("did not start within");
    expect(patient).toMatchObject({ state: "connected" });
  });

  test("exit mid-call: the in-flight call gets an error result, the server is restarted", async () => {
    const { m, dir } = manager({ t: stdio() });
    await m.ready();
    const r = await tool(m, "mcp__t__crash").run({}, ctx(dir));
    expect(r.isError).toBe(true);
    expect(r.errorCode).toBe("mcp_server_down");
    await waitFor(() => m.status()[0]!.state === "connected");
    expect((await tool(m, "mcp__t__echo").run({ text: "back" }, ctx(dir))).text).toBe("echo: back");
  });

  test("a hung call times out (toolTimeoutMs); an abort cancels it and the server is told", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "mcp-mark-")), "marker");
    const { m, dir } = manager({ t: stdio([], { toolTimeoutMs: 300, env: { MCP_TEST_MARKER: marker } }) });
    await m.ready();
    const timedOut = await tool(m, "mcp__t__slow").run({ ms: 10_000 }, ctx(dir));
    expect(timedOut).toMatchObject({ isError: true, errorCode: "Timeout" });
    const ac = new AbortController();
    const pending = tool(m, "mcp__t__slow").run({ ms: 250 }, ctx(dir, ac.signal));
    setTimeout(() => ac.abort(), 50);
    expect(await pending).toMatchObject({ isError: true, errorCode: "Canceled" });
    await waitFor(() => existsSync(marker) && readFileSync(marker, "utf8").split("cancelled").length - 1 >= 2);
  });

  test("a recursive schema disables that one tool with a warning; the others work", async () => {
    const { m, dir, warnings } = manager({ cyc: stdio(["--mode", "cyclic"]) });
    await m.ready();
    expect(m.allTools().map((t) => t.name)).toEqual(["mcp__cyc__echo"]);
    expect(warnings.join("\n")).toContain("cyc/tree disabled");
    expect((await tool(m, "mcp__cyc__echo").run({ text: "ok" }, ctx(dir))).text).toBe("echo: ok");
  });

  test("300 tools past the window share are deferred behind mcp_search; found tools become callable", async () => {
    const { m, dir } = manager({ big: stdio(["--mode", "many"]) }, { binding: { contextWindow: 32_000 } });
    await m.ready();
    expect(m.allTools().length).toBe(300);
    expect(m.isDeferred()).toBe(true);
    expect(m.tools().map((t) => t.name)).toEqual(["mcp_search"]);
    const found = await tool(m, "mcp_search").run({ query: "klingon poetry" }, ctx(dir));
    expect(found.text).toContain("mcp__big__tool_137");
    expect(found.text).toContain('"parameters"');
    expect(m.tools().map((t) => t.name)).toEqual(["mcp_search", "mcp__big__tool_137"]);
    expect((await tool(m, "mcp__big__tool_137").run({ value: "x" }, ctx(dir))).text).toContain("tool_137 ran");
  });

  test("the same catalog in a big window is offered whole; a text-protocol model always gets mcp_search", async () => {
    const small = manager({ t: stdio() }, { binding: { contextWindow: 1_000_000 } });
    await small.m.ready();
    expect(small.m.isDeferred()).toBe(false);
    const text = manager({ t: stdio() }, { binding: { contextWindow: 1_000_000, nativeTools: false } });
    await text.m.ready();
    expect(text.m.tools().map((t) => t.name)).toEqual(["mcp_search"]);
  });

  test("notifications/tools/list_changed is picked up", async () => {
    const { m, dir } = manager({ t: stdio() });
    await m.ready();
    expect(m.find("mcp__t__fresh")).toBeUndefined();
    await tool(m, "mcp__t__add_tool").run({ name: "fresh" }, ctx(dir));
    await waitFor(() => m.find("mcp__t__fresh") !== undefined);
  });

  test("stopping the session kills the server's process group", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "mcp-mark-")), "marker");
    const { m } = manager({ t: stdio([], { env: { MCP_TEST_MARKER: marker } }) });
    await m.ready();
    const pid = Number(/started (\d+)/.exec(readFileSync(marker, "utf8"))![1]);
    expect(alive(pid)).toBe(true);
    await m.dispose();
    await waitFor(() => !alive(pid), 5000);
  });

  test("includeTools / excludeTools and enabled: false", async () => {
    const { m } = manager({ t: stdio([], { includeTools: ["e*", "add"], excludeTools: ["echo"] }), off: stdio([], { enabled: false }) });
    await m.ready();
    expect(m.allTools().map((t) => t.name)).toEqual(["mcp__t__add"]);
    expect(m.status()[1]).toMatchObject({ name: "off", state: "disabled", toolCount: 0 });
  });

  test("an unapproved project server is not started until approved", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "mcp-mark-")), "marker");
    const { m } = manager({ proj: stdio([], { env: { MCP_TEST_MARKER: marker } }) }, { scope: "project" });
    await m.ready();
    expect(m.status()[0]!.state).toBe("unapproved");
    expect(m.unapproved().map((s) => s.name)).toEqual(["proj"]);
    expect(existsSync(marker)).toBe(false);
    await m.approve(["proj"]);
    expect(m.status()[0]!.state).toBe("connected");
    expect(existsSync(marker)).toBe(true);
  });

  test("approved for this session only (the TUI's \"once\"): started now, asked again by the next session", async () => {
    const home = mkdtempSync(join(tmpdir(), "mcp-home-"));
    const projectRoot = mkdtempSync(join(tmpdir(), "mcp-proj-"));
    const entry = stdio();
    const first = manager({ proj: entry }, { scope: "project", home, projectRoot }).m;
    await first.ready();
    await first.approve(["proj"], false);
    expect(first.status()[0]!.state).toBe("connected");
    await first.dispose();
    const second = manager({ proj: entry }, { scope: "project", home, projectRoot }).m;
    await second.ready();
    expect(second.unapproved().map((s) => s.name)).toEqual(["proj"]);
    await second.approve(["proj"]);
    await second.dispose();
    const third = manager({ proj: entry }, { scope: "project", home, projectRoot }).m;
    await third.ready();
    expect(third.unapproved()).toEqual([]);
    await third.dispose();
  });

  test("@modelcontextprotocol/server-everything over stdio", async () => {
    const entry = join(import.meta.dir, "..", "..", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
    const { m, dir } = manager({ everything: { command: BUN, args: [entry, "stdio"], timeoutMs: 20_000 } as McpServerConfig });
    await m.ready();
    const st = m.status()[0]!;
    expect(st.reason ?? "").toBe("");
    expect(st.state).toBe("connected");
    const echo = m.allTools().find((t) => t.name === "mcp__everything__echo");
    expect(echo).toBeDefined();
    expect((await echo!.run({ message: "from chatcli" }, ctx(dir))).text).toContain("from chatcli");
  }, 30_000);
});

describe("MCP over HTTP", () => {
  let server: RunningHttpServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  test("Streamable HTTP: headers and the bearer token from bearerTokenEnv are sent", async () => {
    server = startStreamableServer({ requireBearer: "s3cret" });
    const { m, dir } = manager({ web: { type: "http", url: server.url, headers: { "X-Team": "${TEAM}" }, bearerTokenEnv: "WEB_TOKEN" } as McpServerConfig }, { env: { WEB_TOKEN: "s3cret", TEAM: "blue" } });
    await m.ready();
    expect(m.status()[0]).toMatchObject({ state: "connected", transport: "http" });
    expect((await tool(m, "mcp__web__echo").run({ text: "over http" }, ctx(dir))).text).toBe("echo: over http");
    expect(server.seenHeaders.some((h) => h["x-team"] === "blue")).toBe(true);
  });

  test("a remote server that goes away: the call gets an error result and the server is marked failed", async () => {
    server = startStreamableServer();
    const { m, dir } = manager({ web: { url: server.url } as McpServerConfig });
    await m.ready();
    await server.close();
    server = undefined;
    const r = await tool(m, "mcp__web__echo").run({ text: "x" }, ctx(dir));
    expect(r).toMatchObject({ isError: true, errorCode: "mcp_server_down" });
    await waitFor(() => m.status()[0]!.state !== "connected");
  });

  test("a server that answers 401 shows needs login", async () => {
    server = startStreamableServer({ requireBearer: "s3cret" });
    const { m } = manager({ web: { url: server.url } as McpServerConfig });
    await m.ready();
    expect(m.status()[0]!.state).toBe("needs-login");
    expect(m.status()[0]!.reason).toContain("chatcli mcp login web");
  });

  test("a server that only speaks HTTP+SSE is reached through the fallback", async () => {
    server = await startSseOnlyServer();
    const { m, dir } = manager({ old: { type: "http", url: server.url } as McpServerConfig });
    await m.ready();
    expect(m.status()[0]).toMatchObject({ state: "connected", transport: "sse" });
    expect((await tool(m, "mcp__old__add").run({ a: 2, b: 40 }, ctx(dir))).text).toBe("42");
  });

  test('`type: "sse"` goes straight to the HTTP+SSE transport; its bearer token reaches the stream and the posts', async () => {
    server = await startSseOnlyServer({ requireBearer: "tok" });
    const { m, dir } = manager({ old: { type: "sse", url: server.url, bearerTokenEnv: "SSE_TOKEN" } as McpServerConfig }, { env: { SSE_TOKEN: "tok" } });
    await m.ready();
    expect(m.status()[0]).toMatchObject({ state: "connected", transport: "sse" });
    expect((await tool(m, "mcp__old__echo").run({ text: "sse" }, ctx(dir))).text).toBe("echo: sse");
    expect(server.seenHeaders.every((h) => h.authorization === "Bearer tok")).toBe(true);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
