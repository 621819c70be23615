/**
 * `chatcli mcp import`'s readers on real-world config files of each tool (test/fixtures/mcp-import/), laid out
 * where the tools keep them under a temporary HOME, and the plan: what lands where, what is skipped and why.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readSources } from "../../src/mcp/import/sources.ts";
import { planImport, safeName } from "../../src/mcp/import/plan.ts";
import { parseJsonc } from "../../src/mcp/import/sources.ts";

const FIX = join(import.meta.dir, "..", "fixtures", "mcp-import");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A HOME with every tool's user file and a project with Cursor's project file. */
export function layOut(): { home: string; project: string; xdg: string } {
  const home = mkdtempSync(join(tmpdir(), "mcp-import-home-"));
  dirs.push(home);
  const project = join(home, "work", "proj");
  const xdg = join(home, "xdg");
  mkdirSync(join(project, ".cursor"), { recursive: true });
  writeFileSync(join(home, ".claude.json"), readFileSync(join(FIX, "claude", ".claude.json"), "utf8").replace("__PROJECT__", project));
  cpSync(join(FIX, "cursor", "mcp.json"), join(home, ".cursor", "mcp.json"));
  cpSync(join(FIX, "cursor-project", "mcp.json"), join(project, ".cursor", "mcp.json"));
  cpSync(join(FIX, "codex", "config.toml"), join(home, ".codex", "config.toml"));
  cpSync(join(FIX, "gemini", "settings.json"), join(home, ".gemini", "settings.json"));
  cpSync(join(FIX, "opencode", "opencode.jsonc"), join(xdg, "opencode", "opencode.jsonc"));
  const desktop = process.platform === "darwin" ? join(home, "Library", "Application Support", "Claude") : join(xdg, "Claude");
  cpSync(join(FIX, "claude-desktop", "claude_desktop_config.json"), join(desktop, "claude_desktop_config.json"));
  return { home, project, xdg };
}

describe("mcp import sources", () => {
  const { home, project, xdg } = layOut();
  const { reads, looked } = readSources({ userHome: home, env: { XDG_CONFIG_HOME: xdg }, projectRoot: project });
  const plan = planImport(reads, { user: {}, project: {} });
  const added = Object.fromEntries(plan.add.map((a) => [a.name, a]));
  const skipped = Object.fromEntries(plan.skipped.map((s) => [`${s.tool}:${s.name}`, s.reason]));

  test("every tool's file is found and read without error", () => {
    expect(reads.map((r) => [r.tool, r.level, r.error])).toEqual([
      ["claude", "user", undefined],
      ["claude-desktop", "user", undefined],
      ["cursor", "user", undefined],
      ["cursor", "project", undefined],
      ["codex", "user", undefined],
      ["gemini", "user", undefined],
      ["opencode", "user", undefined],
    ]);
    expect(looked).toContain(join(project, "opencode.json"));
    expect(looked).toContain(join(home, ".codex", "config.toml"));
  });

  test("Claude Code: user servers of each transport, this project's private ones, never another project's", () => {
    expect(added.sentry?.entry).toEqual({ type: "http", url: "https://mcp.sentry.dev/mcp" });
    expect(added.asana?.entry).toEqual({ type: "sse", url: "https://mcp.asana.com/sse", headers: { "X-Asana-Client": "claude" } });
    expect(added.airtable?.entry).toEqual({ command: "npx", args: ["-y", "airtable-mcp-server"], env: { AIRTABLE_API_KEY: "${AIRTABLE_API_KEY}" } });
    expect(added.db).toMatchObject({ target: "user", entry: { command: "npx", args: ["-y", "@bytebase/dbhub", "--dsn", "postgresql://localhost:5432/dev"] } });
    expect(added["other-only"]).toBeUndefined();
    expect(skipped["claude:chrome"]).toEqual({ kind: "unsupported", why: 'transport "ws" is not supported' });
  });

  test("Claude Desktop: its mcpServers; a server Claude Code has too is a duplicate", () => {
    expect(added.filesystem?.entry).toEqual({ command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/Users/someone/Desktop", "/Users/someone/Downloads"] });
    expect(skipped["claude-desktop:sentry"]).toEqual({ kind: "duplicate", file: join(home, ".claude.json") });
  });

  test("Cursor: ${env:X} and ${userHome} rewritten, project file → project scope with ${workspaceFolder}", () => {
    expect(added.context7?.entry).toEqual({ type: "http", url: "https://mcp.context7.com/mcp", headers: { CONTEXT7_API_KEY: "${CONTEXT7_API_KEY}" } });
    expect(added.notes?.entry).toEqual({ command: join(home, "bin", "notes-mcp"), args: ["--stdio"] });
    expect(added["project-tool"]).toMatchObject({ target: "project", fromUserFile: false, entry: { command: "node", args: [`${project}/tools/mcp-server.js`], env: { API_KEY: "${PROJECT_API_KEY}" } } });
    // The same server Claude Code has: a duplicate; the same name with other arguments: a clash (first source wins).
    expect(skipped["cursor:sentry"]).toEqual({ kind: "duplicate", file: join(home, ".claude.json") });
    expect(skipped["cursor:airtable"]).toEqual({ kind: "clash", file: join(home, ".claude.json") });
  });

  test("Codex config.toml: stdio and http entries, quoted names made safe, timeouts in ms, env subtable", () => {
    expect(added.figma?.entry).toEqual({ type: "http", url: "https://mcp.figma.com/mcp", headers: { "X-Figma-Region": "us-east-1", "X-Team": "${FIGMA_TEAM}" }, bearerTokenEnv: "FIGMA_OAUTH_TOKEN" });
    expect(added["docs-search"]).toMatchObject({
      renamedFrom: "docs.search",
      entry: { command: "uvx", args: ["mcp-server-docs", "--root", "/srv/docs"], env: { DOCS_TOKEN: "t0kén", LOG: "multi\nline" }, enabled: false, timeoutMs: 20000, toolTimeoutMs: 60500, includeTools: ["search", "open"] },
    });
    expect(skipped["codex:context7"]).toEqual({ kind: "clash", file: join(home, ".cursor", "mcp.json") });
    expect(skipped["codex:broken"]).toEqual({ kind: "unsupported", why: "neither a command nor a url" });
  });

  test("Gemini CLI: httpUrl = Streamable HTTP, url = SSE, $VAR references, oauth client", () => {
    expect(added.github?.entry).toEqual({ type: "http", url: "https://api.githubcopilot.com/mcp/", headers: { Authorization: "Bearer ${GITHUB_PAT}" }, toolTimeoutMs: 5000 });
    expect(added.pythonTools?.entry).toEqual({
      command: "python",
      args: ["-m", "my_mcp_server", "--port", "8080"],
      env: { DATABASE_URL: "${DB_CONNECTION_STRING}", API_KEY: "${EXTERNAL_API_KEY}" },
      cwd: "./mcp-servers/python",
      toolTimeoutMs: 15000,
      includeTools: ["safe_tool", "file_reader"],
    });
    expect(added.events?.entry).toEqual({ type: "sse", url: "http://localhost:8080/sse", oauth: { clientId: "gem-client", scopes: ["read"] } });
    expect(skipped["gemini:legacy-tcp"]?.kind).toBe("unsupported");
  });

  test("OpenCode jsonc: comments and trailing commas, local command arrays, {env:X}", () => {
    expect(added.jira?.entry).toEqual({ type: "http", url: "https://jira.example.com/mcp", headers: { Authorization: "Bearer ${JIRA_TOKEN}" } });
    expect(added.everything?.entry).toEqual({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"], env: { MY_ENV_VAR: "my // not a comment" }, timeoutMs: 8000 });
    expect(skipped["opencode:postgres"]).toEqual({ kind: "clash", file: join(home, ".cursor", "mcp.json") });
    expect(skipped["opencode:sock"]).toEqual({ kind: "unsupported", why: 'type "websocket" is not supported' });
  });

  test("names configured already are never overwritten: the same entry is 'configured already', another one 'exists'", () => {
    const again = planImport(reads, { user: { sentry: { type: "http", url: "https://mcp.sentry.dev/mcp" }, github: { command: "gh-mcp" } }, project: {} });
    expect(again.add.some((a) => a.name === "sentry" || a.name === "github")).toBe(false);
    expect(again.skipped.find((s) => s.name === "sentry" && s.tool === "claude")?.reason).toEqual({ kind: "same", scope: "user" });
    expect(again.skipped.find((s) => s.name === "github")?.reason).toEqual({ kind: "exists", scope: "user" });
  });

  test("--from limits the tools read; a forced scope sends every server there", () => {
    const only = readSources({ userHome: home, env: { XDG_CONFIG_HOME: xdg }, projectRoot: project }, ["codex"]);
    expect(only.reads.map((r) => r.tool)).toEqual(["codex"]);
    const forced = planImport(reads, { user: {}, project: {} }, "project");
    expect(new Set(forced.add.map((a) => a.target))).toEqual(new Set(["project"]));
  });

  test("a broken file is reported, the others still read", () => {
    const h = layOut();
    writeFileSync(join(h.home, ".gemini", "settings.json"), "{ not json");
    const r = readSources({ userHome: h.home, env: { XDG_CONFIG_HOME: h.xdg }, projectRoot: h.project });
    expect(r.reads.find((x) => x.tool === "gemini")?.error).toBeTruthy();
    expect(r.reads.find((x) => x.tool === "codex")?.servers.length).toBe(4);
  });
});

describe("helpers", () => {
  test("safeName", () => {
    expect(safeName("docs.search")).toBe("docs-search");
    expect(safeName("my server (prod)")).toBe("my-server-prod");
    expect(safeName("...")).toBe("");
    expect(safeName("x".repeat(80))).toHaveLength(64);
  });

  test("parseJsonc keeps comment-like text inside strings and drops only trailing commas", () => {
    expect(parseJsonc('{"a": "http://x/*y*/", // c\n "b": [1, 2, ], /* d */ "c": ",}" ,}')).toEqual({ a: "http://x/*y*/", b: [1, 2], c: ",}" });
  });
});
