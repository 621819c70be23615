import { afterAll, describe, expect, test } from "bun:test";
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { editServers, findServer, readScope } from "../../src/mcp/config-files.ts";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), "mcp-cfg-"));
  dirs.push(d);
  return d;
};

describe("mcp config files", () => {
  test("a file that does not parse is reported and never overwritten", () => {
    const home = temp();
    const file = join(home, "settings.json");
    writeFileSync(file, '{ "model": "x", ');
    const r = editServers("user", home, home, (s) => ((s.a = { command: "a" }), { write: true, result: 1 }));
    expect(r.ok).toBe(false);
    expect(readFileSync(file, "utf8")).toBe('{ "model": "x", ');
    expect(readScope("user", home, home).error).toBeTruthy();
  });

  test("only mcpServers changes; a new user file is 0600; no temporary file is left behind", () => {
    const home = temp();
    const r = editServers("user", home, home, (s) => ((s.a = { command: "a" }), { write: true, result: 1 }));
    expect(r.ok).toBe(true);
    expect(statSync(join(home, "settings.json")).mode & 0o777).toBe(0o600);
    writeFileSync(join(home, "settings.json"), JSON.stringify({ z: 1, mcpServers: { a: { command: "a" } }, b: [1] }));
    editServers("user", home, home, (s) => (delete s.a, (s.c = { url: "http://127.0.0.1:1/mcp" }), { write: true, result: 1 }));
    expect(JSON.parse(readFileSync(join(home, "settings.json"), "utf8"))).toEqual({ z: 1, mcpServers: { c: { url: "http://127.0.0.1:1/mcp" } }, b: [1] });
    expect(readdirSync(home)).toEqual(["settings.json"]);
  });

  test("a symlinked settings file is written where it points; the link stays", () => {
    const home = temp();
    const dotfiles = temp();
    writeFileSync(join(dotfiles, "settings.json"), JSON.stringify({ model: "m" }));
    symlinkSync(join(dotfiles, "settings.json"), join(home, "settings.json"));
    editServers("user", home, home, (s) => ((s.a = { command: "a" }), { write: true, result: 1 }));
    expect(lstatSync(join(home, "settings.json")).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(join(dotfiles, "settings.json"), "utf8"))).toEqual({ model: "m", mcpServers: { a: { command: "a" } } });
  });

  test("a project .mcp.json that uses `servers` (VS Code's shape) is read and edited there; the project's entry wins a name", () => {
    const home = temp();
    const project = temp();
    writeFileSync(join(project, ".mcp.json"), JSON.stringify({ servers: { x: { command: "px" } } }));
    writeFileSync(join(home, "settings.json"), JSON.stringify({ mcpServers: { x: { command: "ux" }, y: { command: "uy" } } }));
    expect(findServer(home, project, "x")?.scope).toBe("project");
    expect(findServer(home, project, "y")?.scope).toBe("user");
    editServers("project", home, project, (s) => ((s.z = { command: "pz" }), { write: true, result: 1 }));
    expect(JSON.parse(readFileSync(join(project, ".mcp.json"), "utf8"))).toEqual({ servers: { x: { command: "px" }, z: { command: "pz" } } });
    expect(readScope("user", home, project).servers.map((s) => [s.name, s.entry !== undefined])).toEqual([["x", true], ["y", true]]);
  });

  test("an invalid entry is listed with its problem, not dropped", () => {
    const home = temp();
    writeFileSync(join(home, "settings.json"), JSON.stringify({ mcpServers: { bad: { command: 1 }, "bad name": { command: "x" } } }));
    const s = readScope("user", home, home).servers;
    expect(s.map((x) => [x.name, x.entry === undefined, Boolean(x.error)])).toEqual([["bad", true, true], ["bad name", true, true]]);
  });
});
