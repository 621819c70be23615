import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadMcpServers, McpConfigError } from "../../src/mcp/load-servers.ts";
import { loadConfig } from "../../src/config/load-config.ts";

function project(mcpJson?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "mcp-load-"));
  if (mcpJson !== undefined) writeFileSync(join(dir, ".mcp.json"), typeof mcpJson === "string" ? mcpJson : JSON.stringify(mcpJson));
  return dir;
}

const base = (projectRoot: string) => ({ userServers: undefined, userFile: "/u/settings.json", projectRoot, cwd: projectRoot, configFiles: [] as string[], strict: false });

describe("loadMcpServers", () => {
  test("user < project < --mcp-config, each with its scope; a later entry replaces an earlier one of the same name", () => {
    const dir = project({ mcpServers: { shared: { command: "proj-cmd" }, p: { type: "http", url: "http://127.0.0.1:1/mcp" } } });
    const file = join(dir, "extra.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { c: { command: "cli-cmd", args: ["-x"] } } }));
    const r = loadMcpServers({ ...base(dir), userServers: { u: { command: "user-cmd" }, shared: { command: "user-shared" } }, configFiles: [file] });
    expect(r.servers.map((s) => [s.name, s.scope])).toEqual([["u", "user"], ["shared", "project"], ["p", "project"], ["c", "cli"]]);
    expect(r.servers.find((s) => s.name === "shared")!.entry).toMatchObject({ command: "proj-cmd" });
    expect(r.warnings).toEqual([]);
  });

  test("--strict-mcp-config uses only the --mcp-config servers; inline JSON is accepted", () => {
    const dir = project({ mcpServers: { p: { command: "x" } } });
    const r = loadMcpServers({ ...base(dir), userServers: { u: { command: "y" } }, configFiles: ['{"mcpServers":{"i":{"command":"inline"}}}'], strict: true });
    expect(r.servers.map((s) => s.name)).toEqual(["i"]);
  });

  test("an invalid entry is skipped with a warning naming it; the others load", () => {
    const dir = project({ mcpServers: { good: { command: "ok" }, bad: { args: ["no command"] }, "bad name!": { command: "x" } } });
    const r = loadMcpServers(base(dir));
    expect(r.servers.map((s) => s.name)).toEqual(["good"]);
    expect(r.warnings.join("\n")).toContain('"bad"');
    expect(r.warnings.join("\n")).toContain('"bad name!"');
  });

  test("a broken .mcp.json is a warning; a missing or broken --mcp-config is an McpConfigError", () => {
    const dir = project("{oops");
    expect(loadMcpServers(base(dir)).warnings[0]).toContain(".mcp.json");
    expect(() => loadMcpServers({ ...base(dir), configFiles: [join(dir, "missing.json")] })).toThrow(McpConfigError);
    expect(() => loadMcpServers({ ...base(dir), configFiles: ["{not json"] })).toThrow(McpConfigError);
  });

  test("no servers anywhere: nothing, and no warning", () => {
    expect(loadMcpServers(base(project()))).toEqual({ servers: [], warnings: [] });
  });
});

describe("settings", () => {
  test("mcpServers in a project's .chatcli/settings.json are refused (repository content goes through .mcp.json approval)", () => {
    const root = mkdtempSync(join(tmpdir(), "mcp-cfg-"));
    const home = join(root, "home");
    const proj = join(root, "proj");
    mkdirSync(join(proj, ".chatcli"), { recursive: true });
    mkdirSync(join(proj, ".git"), { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, "settings.json"), JSON.stringify({ mcpServers: { mine: { command: "user-server" } } }));
    writeFileSync(join(proj, ".chatcli", "settings.json"), JSON.stringify({ mcpServers: { evil: { command: "rm" } } }));
    const cfg = loadConfig({ cwd: proj, env: { CHATCLI_HOME: home, HOME: root }, flags: {} });
    expect(Object.keys(cfg.settings.mcpServers ?? {})).toEqual(["mine"]);
    expect(cfg.warnings.join("\n")).toContain("mcpServers");
  });
});
