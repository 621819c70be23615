/** `@server:uri` resource mentions, server prompts as slash commands, and `/mcp`, against the real stdio test server. */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpManager } from "../../src/mcp/runtime/mcp-manager.ts";
import { expandMcpMentions } from "../../src/mcp/resources/mentions.ts";
import { createMcpSlash, mcpStatusText } from "../../src/cli/mcp-slash.ts";
import type { AgentEvent, Op } from "../../src/protocol/events.ts";
import type { McpServerConfig } from "../../src/mcp/server-config.ts";

const FIXTURE = join(import.meta.dir, "fixtures", "mcp-test-server.ts");
const managers: McpManager[] = [];
afterEach(async () => {
  for (const m of managers.splice(0)) await m.dispose();
});

function manager(servers: Record<string, McpServerConfig>, scope: "user" | "project" = "user"): McpManager {
  const dir = mkdtempSync(join(tmpdir(), "mcp-mp-"));
  const m = new McpManager({
    servers: Object.entries(servers).map(([name, entry]) => ({ name, entry, scope, source: "test" })),
    projectRoot: dir,
    home: join(dir, "home"),
    env: process.env,
    baseEnv: { PATH: process.env.PATH ?? "" },
    clientVersion: "test",
    log: () => undefined,
    binding: () => ({ providerId: "OLLAMA", nativeTools: true, contextWindow: 100_000 }),
  });
  managers.push(m);
  return m;
}

const t1 = { command: process.execPath, args: [FIXTURE] };

describe("@server:uri mentions", () => {
  test("a resource of a configured server is attached; other @words are left alone; a bad uri is a notice", async () => {
    const m = manager({ t: t1 });
    const r = await expandMcpMentions("summarize @t:test://doc/readme please, cc @bob:lunch", m, new AbortController().signal);
    expect(r.text.startsWith("summarize @t:test://doc/readme please, cc @bob:lunch")).toBe(true);
    expect(r.text).toContain('<mcp_resource server="t" uri="test://doc/readme">');
    expect(r.text).toContain("banana-42");
    expect(r.notices).toEqual([]);
    const bad = await expandMcpMentions("read @t:test://nope", m, new AbortController().signal);
    expect(bad.text).toBe("read @t:test://nope");
    expect(bad.notices[0]).toContain("@t:test://nope");
  });
});

describe("/mcp and server prompts", () => {
  test("/mcp lists servers with state, tools and tokens; a prompt runs as /mcp__t__greet and is sent as input", async () => {
    const m = manager({ t: t1, off: { ...t1, enabled: false } });
    await m.ready();
    const ops: Op[] = [];
    const events: AgentEvent[] = [];
    const slash = createMcpSlash(m, { submit: (op) => ops.push(op), publish: (e) => events.push(e) });
    const text = await slash.handle("mcp", "")!;
    expect(text).toMatch(/t \[user\] connected · 9 tools · ~\d+ tokens/);
    expect(text).toContain("off [user] disabled");
    expect(slash.dynamicCommands().map((c) => c.name)).toEqual(["mcp__t__greet"]);
    expect(await slash.handle("mcp__t__greet", "Ada")!).toBe("");
    expect(ops).toEqual([{ type: "user_input", text: "Please greet Ada warmly." }]);
    expect(slash.handle("mcp__t__nope", "")).toBeUndefined();
    expect(await slash.handle("mcp", "restart nobody")!).toContain("nobody");
    expect(await slash.handle("mcp", "restart t")!).toContain("connected");
  });

  test("/mcp approve starts a project's unapproved server", async () => {
    const m = manager({ p: t1 }, "project");
    const slash = createMcpSlash(m, { submit: () => undefined, publish: () => undefined });
    m.startAll();
    expect(mcpStatusText(m)).toContain("p [project] not approved");
    const out = await slash.handle("mcp", "approve")!;
    expect(out).toContain("p [project] connected");
    expect(await slash.handle("mcp", "approve")!).toContain("No MCP server");
  });
});
