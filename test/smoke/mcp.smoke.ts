// MCP through the compiled binary (issue 17): a scripted model (fake Ollama) calls MCP tools over stdio and over
// Streamable HTTP, finds deferred tools with mcp_search, and a project's .mcp.json server does not start before
// it is approved.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";
import { startStreamableServer, type RunningHttpServer } from "../mcp/fixtures/http-test-servers.ts";
import { approve } from "../../src/mcp/approvals.ts";

const FIXTURE = join(import.meta.dir, "..", "mcp", "fixtures", "mcp-test-server.ts");
const BUN = process.execPath;

let b: BinaryEnv;
let fake: FakeOllama;
let http: RunningHttpServer;
const model = { name: "coder:7b", contextLength: 32768, capabilities: ["completion", "tools"] };
const textModel = { name: "plain:1b", contextLength: 32768, capabilities: ["completion"] };

beforeAll(() => {
  b = isolatedBinary();
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  fake = startFakeOllama({ models: [model, textModel] });
  http = startStreamableServer();
  mkdirSync(join(b.home, ".chatcli"), { recursive: true });
  // MCP tools ask by default; this rule allows the test servers' tools (the same policy as every tool).
  writeFileSync(join(b.home, ".chatcli", "coder_policy.json"), JSON.stringify({ rules: [{ pattern: "mcp__t__*", action: "allow" }, { pattern: "mcp__web__*", action: "allow" }, { pattern: "mcp__big__*", action: "allow" }, { pattern: "mcp__proj__*", action: "allow" }] }));
});
afterAll(async () => {
  fake.stop();
  await http.close();
  b.cleanup();
});

const env = () => ({ OLLAMA_HOST: fake.url });
const stdioServer = (args: string[] = [], extraEnv: Record<string, string> = {}) => ({ command: BUN, args: [FIXTURE, ...args], env: extraEnv });
const toolNames = (req: Record<string, unknown> | undefined) => ((req?.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((t) => t.function.name);
const toolMessages = (req: Record<string, unknown> | undefined) => ((req?.messages as Array<{ role: string; content: string }> | undefined) ?? []).filter((m) => m.role === "tool");

function writeSettings(servers: Record<string, unknown>): void {
  writeFileSync(join(b.home, ".chatcli", "settings.json"), JSON.stringify({ mcpServers: servers }));
}

describe("MCP (compiled binary)", () => {
  test("stdio: a server from settings.json; the model calls its tool; stream-json shows the call", async () => {
    writeSettings({ t: stdioServer() });
    fake.enqueue({ toolCalls: [{ name: "mcp__t__echo", arguments: { text: "hello mcp" } }], chunks: [] }, { text: "Done." });
    const before = fake.chatRequests().length;
    const r = await run(b, ["-p", "echo it", "--model", "coder:7b", "--output-format", "stream-json"], env());
    expect(r.code).toBe(0);
    const reqs = fake.chatRequests().slice(before);
    expect(toolNames(reqs[0])).toContain("mcp__t__echo");
    expect(toolMessages(reqs[1]).at(-1)?.content).toContain("echo: hello mcp");
    const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; name?: string; tool?: string });
    const started = events.find((e) => e.type === "tool.started");
    expect(JSON.stringify(started)).toContain("mcp__t__echo");
    expect(events.some((e) => e.type === "tool.completed")).toBe(true);
  }, 60_000);

  test("without an allow rule an MCP tool asks: headless denies it and says so", async () => {
    writeSettings({ ask: stdioServer() });
    fake.enqueue({ toolCalls: [{ name: "mcp__ask__echo", arguments: { text: "x" } }], chunks: [] }, { text: "Denied." });
    const before = fake.chatRequests().length;
    const r = await run(b, ["-p", "echo it", "--model", "coder:7b"], env());
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("ask · echo");
    expect(toolMessages(fake.chatRequests().slice(before)[1]).at(-1)?.content).toMatch(/denied|approval/i);
  }, 60_000);

  test("Streamable HTTP via --mcp-config (inline JSON); --strict-mcp-config drops the settings servers", async () => {
    writeSettings({ t: stdioServer() });
    fake.enqueue({ toolCalls: [{ name: "mcp__web__add", arguments: { a: 20, b: 22 } }], chunks: [] }, { text: "42." });
    const before = fake.chatRequests().length;
    const cfg = JSON.stringify({ mcpServers: { web: { type: "http", url: http.url } } });
    const r = await run(b, ["-p", "add", "--model", "coder:7b", "--mcp-config", cfg, "--strict-mcp-config"], env());
    expect(r.code).toBe(0);
    const reqs = fake.chatRequests().slice(before);
    expect(toolNames(reqs[0])).toContain("mcp__web__add");
    expect(toolNames(reqs[0]).some((n) => n.startsWith("mcp__t__"))).toBe(false);
    expect(toolMessages(reqs[1]).at(-1)?.content).toContain("42");
  }, 60_000);

  test("an invalid entry is skipped with a warning naming it; the valid ones still work", async () => {
    writeSettings({});
    const file = join(b.dir, "mixed.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { t: stdioServer(), broken: { args: ["no command or url"] } } }));
    fake.enqueue({ toolCalls: [{ name: "mcp__t__add", arguments: { a: 1, b: 2 } }], chunks: [] }, { text: "3." });
    const before = fake.chatRequests().length;
    const r = await run(b, ["-p", "add", "--model", "coder:7b", "--mcp-config", file], env());
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('MCP server "broken"');
    expect(toolMessages(fake.chatRequests().slice(before)[1]).at(-1)?.content).toStartWith("3\n");
  }, 60_000);

  test("a missing --mcp-config file is a usage error (exit 2)", async () => {
    const r = await run(b, ["-p", "x", "--model", "coder:7b", "--mcp-config", join(b.dir, "nope.json")], env());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("nope.json");
  });

  test("300 tools are deferred behind mcp_search; the model finds one and calls it", async () => {
    const file = join(b.dir, "big.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { big: stdioServer(["--mode", "many"]) } }));
    fake.enqueue(
      { toolCalls: [{ name: "mcp_search", arguments: { query: "klingon poetry" } }], chunks: [] },
      { toolCalls: [{ name: "mcp__big__tool_137", arguments: { value: "qapla" } }], chunks: [] },
      { text: "Translated." },
    );
    const before = fake.chatRequests().length;
    const r = await run(b, ["-p", "translate", "--model", "coder:7b", "--mcp-config", file, "--strict-mcp-config"], env());
    expect(r.code).toBe(0);
    const reqs = fake.chatRequests().slice(before);
    expect(toolNames(reqs[0])).toContain("mcp_search");
    expect(toolNames(reqs[0]).filter((n) => n.startsWith("mcp__big__")).length).toBe(0);
    expect(toolMessages(reqs[1]).at(-1)?.content).toContain("mcp__big__tool_137");
    expect(toolNames(reqs[1])).toContain("mcp__big__tool_137");
    expect(toolMessages(reqs[2]).at(-1)?.content).toContain("tool_137 ran");
  }, 60_000);

  test("a text-protocol model always gets mcp_search; it finds a tool and calls it in markup", async () => {
    writeSettings({ t: stdioServer() });
    fake.enqueue(
      { text: `<tool_call name="mcp_search" args='{"query":"echo text"}' />` },
      { text: `<tool_call name="mcp__t__echo" args='{"text":"via markup"}' />` },
      { text: "Echoed." },
    );
    const before = fake.chatRequests().length;
    const r = await run(b, ["-p", "echo", "--model", "plain:1b"], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Echoed.");
    const reqs = fake.chatRequests().slice(before);
    const system = (reqs[0]!.messages as Array<{ role: string; content: string }>)[0]!.content;
    expect(system).toContain("mcp_search");
    expect(system).not.toContain("mcp__t__echo");
    const last = JSON.stringify(reqs[2]!.messages);
    expect(last).toContain("echo: via markup");
  }, 60_000);

  test("@server:uri attaches an MCP resource to the prompt", async () => {
    writeSettings({ t: stdioServer() });
    fake.enqueue({ text: "It says banana." });
    const before = fake.chatRequests().length;
    const r = await run(b, ["-p", "what does @t:test://doc/readme say?", "--model", "coder:7b"], env());
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("no such file");
    expect(JSON.stringify(fake.chatRequests()[before]!.messages)).toContain("banana-42");
  }, 60_000);

  test("a project .mcp.json server is not started before approval; once approved it is", async () => {
    writeSettings({});
    const project = mkdtempSync(join(tmpdir(), "mcp-proj-"));
    Bun.spawnSync(["git", "init", "-q"], { cwd: project });
    const marker = join(project, "started.txt");
    const entry = stdioServer([], { MCP_TEST_MARKER: marker });
    writeFileSync(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { proj: entry } }));
    fake.enqueue({ text: "No tools." });
    const before = fake.chatRequests().length;
    const first = await runIn(project, ["-p", "hi", "--model", "coder:7b"]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("proj");
    expect(first.stderr).toMatch(/not approved|not started/);
    expect(existsSync(marker)).toBe(false);
    expect(toolNames(fake.chatRequests()[before]).some((n) => n.startsWith("mcp__proj__"))).toBe(false);

    approve(project, "proj", entry, { home: join(b.home, ".chatcli") });
    fake.enqueue({ toolCalls: [{ name: "mcp__proj__echo", arguments: { text: "approved" } }], chunks: [] }, { text: "Done." });
    const at = fake.chatRequests().length;
    const second = await runIn(project, ["-p", "hi", "--model", "coder:7b"]);
    expect(second.code).toBe(0);
    expect(readFileSync(marker, "utf8")).toContain("started");
    expect(toolMessages(fake.chatRequests()[at + 1]).at(-1)?.content).toContain("echo: approved");
    // The server was stopped with the session (its process group killed).
    const pid = Number(/started (\d+)/.exec(readFileSync(marker, "utf8"))![1]);
    expect(() => process.kill(pid, 0)).toThrow();

    // A changed entry needs approval again.
    writeFileSync(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { ...entry, args: [...entry.args, "--garbage"] } } }));
    fake.enqueue({ text: "No tools." });
    const third = await runIn(project, ["-p", "hi", "--model", "coder:7b"]);
    expect(third.stderr).toContain("proj");
  }, 60_000);

  test.skipIf(!hasTmux())("TUI: asks about a project's servers (names and commands), starts them on yes; /mcp lists them connected", async () => {
    writeSettings({ u: stdioServer() });
    const project = mkdtempSync(join(tmpdir(), "mcp-tui-"));
    Bun.spawnSync(["git", "init", "-q"], { cwd: project });
    const marker = join(project, "started.txt");
    writeFileSync(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { proj: stdioServer(["--garbage"], { MCP_TEST_MARKER: marker }) } }));
    const t = new Tmux(join(b.home, "mcp-tui.sock"), paneCommand(b, "--model coder:7b", { env: env(), cwd: project, after: "sleep 30" }), 140, 40);
    try {
      const box = await t.waitFor((s) => s.includes("Permission required") && s.includes("proj"));
      expect(box).toContain("mcp-test-server.ts --garbage");
      expect(existsSync(marker)).toBe(false);
      await Bun.sleep(500); // the box ignores keys typed just before it appeared
      t.sendLiteral("a");
      await t.waitFor((s) => s.includes("Approved for this project: proj"));
      expect(readFileSync(join(b.home, ".chatcli", "mcp-approvals.json"), "utf8")).toContain("proj");
      t.sendLiteral("/mcp");
      t.send("Enter");
      const list = await t.waitFor((s) => /proj \[project\] connected · 9 tools/.test(s) && /u \[user\] connected/.test(s), 15_000);
      expect(list).toContain("MCP servers (2)");
      expect(readFileSync(marker, "utf8")).toContain("started");
    } finally {
      t.kill();
    }
  }, 30_000);

  test.skipIf(!hasTmux())("TUI: Esc cancels a hung MCP call; the server is told (notifications/cancelled)", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "mcp-esc-")), "marker");
    writeSettings({ t: stdioServer([], { MCP_TEST_MARKER: marker }) });
    fake.enqueue({ toolCalls: [{ name: "mcp__t__slow", arguments: { ms: 60000 } }], chunks: [] }, { text: "Stopped." });
    const t = new Tmux(join(b.home, "mcp-esc.sock"), paneCommand(b, "--model coder:7b", { env: env(), after: "sleep 30" }), 140, 40);
    try {
      await t.waitFor((s) => s.includes("Ask anything"));
      await t.waitFor(() => existsSync(marker) && readFileSync(marker, "utf8").includes("started"));
      t.sendLiteral("wait for it");
      t.send("Enter");
      await t.waitFor((s) => s.includes("t · slow"));
      await Bun.sleep(300);
      t.send("Escape");
      await t.waitFor(() => readFileSync(marker, "utf8").includes("cancelled"), 10_000);
      await t.waitFor((s) => s.includes("Interrupted"));
    } finally {
      t.kill();
    }
  }, 30_000);
});

async function runIn(cwd: string, args: string[]) {
  const proc = Bun.spawn([b.bin, ...args], { cwd, env: { ...b.env, ...env() }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}
