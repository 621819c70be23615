// Smoke test of `chatcli mcp …` in the compiled binary, with HOME and CHATCLI_HOME in a temp dir: add / add-json /
// remove / list / get edit the user settings and the project's .mcp.json (other keys kept, atomically); project
// servers need approval and `list --check` never starts an unapproved one; `list --check` connects to a real stdio
// MCP server and to an OAuth-protected HTTP one; `mcp login` completes a real OAuth flow (the test is the browser);
// `mcp import` reads the other tools' real config files.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedBinary, run, runAt, type BinaryEnv } from "../support/binary.ts";
import { startOAuthMcpServer, type OAuthMcpServer } from "../support/oauth-mcp-server.ts";

const ECHO_SERVER = join(import.meta.dir, "..", "support", "mcp-echo-server.ts");
const FIX = join(import.meta.dir, "..", "fixtures", "mcp-import");

// Each test runs the binary several times; on a loaded machine that takes more than bun's default 5 s.
setDefaultTimeout(120_000);

let b: BinaryEnv;
let project: string;
const settingsFile = () => join(b.env.CHATCLI_HOME!, "settings.json");
const readJson = (f: string) => JSON.parse(readFileSync(f, "utf8")) as Record<string, unknown>;
const servers = (f: string) => (readJson(f).mcpServers ?? {}) as Record<string, Record<string, unknown>>;
const mcp = (args: string[], env: Record<string, string> = {}) => runAt(b, project, ["mcp", ...args], env);

beforeAll(() => {
  b = isolatedBinary();
  project = join(b.dir, "proj");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(b.env.CHATCLI_HOME!, { recursive: true });
});
afterAll(() => b.cleanup());

describe("chatcli mcp add / remove / list / get", () => {
  test("add stdio (the server's own flags pass through) and http; other settings keys and the file mode are kept", async () => {
    writeFileSync(settingsFile(), '{\n    "language": "en",\n    "model": "qwen3:8b",\n    "ui": { "mode": "compact" }\n}\n', { mode: 0o640 });
    const a = await mcp(["add", "-e", "API_KEY=abc", "--env", "MODE=x=y", "fs", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "--verbose", "/tmp"]);
    expect(a).toMatchObject({ code: 0, stderr: "" });
    expect(a.stdout).toContain(`Added MCP server fs (user: ${settingsFile()})`);
    const h = await mcp(["add", "--transport", "http", "gh", "https://api.example.com/mcp/", "-H", "Authorization: Bearer ${GH_TOKEN}", "-H", "X-Team: core", "--timeout-ms", "5000"]);
    expect(h.code).toBe(0);
    const json = readJson(settingsFile());
    expect(json.language).toBe("en");
    expect(json.ui).toEqual({ mode: "compact" });
    expect(json.mcpServers).toEqual({
      fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "--verbose", "/tmp"], env: { API_KEY: "abc", MODE: "x=y" } },
      gh: { type: "http", url: "https://api.example.com/mcp/", headers: { Authorization: "Bearer ${GH_TOKEN}", "X-Team": "core" }, timeoutMs: 5000 },
    });
    expect(readFileSync(settingsFile(), "utf8")).toStartWith('{\n    "language"'); // its indentation kept
    expect(statSync(settingsFile()).mode & 0o777).toBe(0o640);
    // Claude Code's URL form without --transport, and the bare form without `--`.
    expect((await mcp(["add", "sentry", "https://mcp.sentry.dev/mcp"])).code).toBe(0);
    expect((await mcp(["add", "py", "uvx", "mcp-server-time", "--local-timezone=UTC"])).code).toBe(0);
    expect(servers(settingsFile()).sentry).toEqual({ type: "http", url: "https://mcp.sentry.dev/mcp" });
    expect(servers(settingsFile()).py).toEqual({ command: "uvx", args: ["mcp-server-time", "--local-timezone=UTC"] });
  });

  test("list shows scope, transport, enabled and target; get hides env and header values", async () => {
    const l = await mcp(["list", "--no-check"]);
    expect(l.code).toBe(0);
    const lines = l.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^NAME\s+SCOPE\s+TRANSPORT\s+ENABLED\s+COMMAND \/ URL\s+STATUS$/);
    expect(lines.find((x) => x.startsWith("fs "))).toMatch(/^fs\s+user\s+stdio\s+yes\s+npx -y @modelcontextprotocol\/server-filesystem --verbose \/tmp$/);
    expect(lines.find((x) => x.startsWith("gh "))).toMatch(/^gh\s+user\s+http\s+yes\s+https:\/\/api\.example\.com\/mcp\/$/);
    const j = JSON.parse((await mcp(["list", "--json", "--no-check"])).stdout) as Array<Record<string, unknown>>;
    expect(j.map((r) => [r.name, r.scope, r.transport, r.enabled])).toEqual([
      ["fs", "user", "stdio", true],
      ["gh", "user", "http", true],
      ["sentry", "user", "http", true],
      ["py", "user", "stdio", true],
    ]);
    const g = await mcp(["get", "fs", "--no-check"]);
    expect(g.code).toBe(0);
    expect(g.stdout).toContain("transport: stdio");
    expect(g.stdout).toContain('env: {"API_KEY":"***","MODE":"***"}');
    expect(g.stdout).not.toContain("abc");
    const gj = JSON.parse((await mcp(["get", "gh", "--json", "--no-check"])).stdout) as { entry: { headers: Record<string, string> } };
    expect(gj.entry.headers).toEqual({ Authorization: "***", "X-Team": "***" });
    expect((await mcp(["get", "nope", "--no-check"])).code).toBe(1);
  });

  test("an existing name is refused (exit 1) unless --force; remove takes it out and keeps the rest", async () => {
    const again = await mcp(["add", "fs", "--", "node", "x.js"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists");
    expect(servers(settingsFile()).fs?.command).toBe("npx");
    expect((await mcp(["add", "--force", "fs", "--", "node", "x.js"])).code).toBe(0);
    expect(servers(settingsFile()).fs).toEqual({ command: "node", args: ["x.js"] });
    const r = await mcp(["remove", "fs"]);
    expect(r.code).toBe(0);
    expect(servers(settingsFile()).fs).toBeUndefined();
    expect(readJson(settingsFile()).model).toBe("qwen3:8b");
    const missing = await mcp(["remove", "fs"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no MCP server named fs");
  });

  test("usage errors exit 2 with a hint; --help exits 0", async () => {
    for (const args of [["add"], ["add", "x"], ["add", "--scope", "local", "x", "--", "y"], ["add", "-e", "NOEQUALS", "x", "--", "y"], ["add", "bad.name", "--", "y"], ["add", "--transport", "ws", "x", "u"], ["frobnicate"], ["list", "--bogus"], ["logout", "../settings"], ["add", "x", "--", "y", "-H"]]) {
      const r = await mcp(args);
      if (args.join(" ") === "add x -- y -H") {
        // After `--`, -H is the server's own argument.
        expect(r.code).toBe(0);
        continue;
      }
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toContain("chatcli mcp --help");
    }
    expect(existsSync(settingsFile())).toBe(true); // `logout ../settings` named no file
    const h = await mcp(["add", "--help"]);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain("--transport stdio|http|sse");
    const top = await run(b, ["--help"]);
    expect(top.stdout).toContain("mcp");
    expect((await mcp([])).code).toBe(2);
  });

  test("a settings file with a broken server entry still lets the user remove it", async () => {
    const s = readJson(settingsFile());
    writeFileSync(settingsFile(), JSON.stringify({ ...s, mcpServers: { ...(s.mcpServers as object), broken: { command: 42 } } }, null, 2));
    const l = await mcp(["list", "--no-check"]);
    expect(l.stdout).toMatch(/broken\s+user\s+\?/);
    const r = await mcp(["remove", "broken"]);
    expect(r.code).toBe(0);
    expect(servers(settingsFile()).broken).toBeUndefined();
  });

  test("add-json writes a checked entry", async () => {
    expect((await mcp(["add-json", "j", '{"command":"node","args":["s.js"],"enabled":false}'])).code).toBe(0);
    expect(servers(settingsFile()).j).toEqual({ command: "node", args: ["s.js"], enabled: false });
    expect((await mcp(["add-json", "k", '{"url":"not a url"}'])).code).toBe(2);
    expect((await mcp(["remove", "j"])).code).toBe(0);
  });
});

describe("project servers need approval", () => {
  test("--scope project writes .mcp.json; the user's own add counts as approval", async () => {
    // No network beyond 127.0.0.1: `list` connects by default, so the servers above that point elsewhere go first.
    for (const n of ["gh", "sentry", "py", "x"]) expect((await mcp(["remove", n])).code).toBe(0);
    const r = await mcp(["add", "--scope", "project", "mine", "--", process.execPath, ECHO_SERVER]);
    expect(r.code).toBe(0);
    expect(servers(join(project, ".mcp.json")).mine).toEqual({ command: process.execPath, args: [ECHO_SERVER] });
    expect((await mcp(["list", "--no-check"])).stdout).toMatch(/mine\s+project\s+stdio\s+yes\s+.*approved/);
  });

  test("a server the repository brings is not started by list --check until approved; a changed entry needs approval again", async () => {
    const marker = join(b.dir, "started-marker");
    const file = join(project, ".mcp.json");
    const repo = { ...servers(file), evil: { command: "sh", args: ["-c", `touch ${marker}`] } };
    writeFileSync(file, JSON.stringify({ mcpServers: repo }, null, 2));
    const l = await mcp(["list", "--timeout-ms", "10000"]); // connects to each server by default
    expect(l.stdout).toMatch(/evil\s+project\s+stdio\s+yes\s+sh -c touch .*not approved \(chatcli mcp approve evil\)/);
    expect(l.stdout).toMatch(/^mine\s+project\s+stdio\s+yes\s+.*approved; connected \(2 tools\)$/m);
    expect(existsSync(marker)).toBe(false);

    const a = await mcp(["approve"]);
    expect(a.code).toBe(0);
    expect(a.stdout).toContain(`Approved evil for ${project}: stdio sh -c touch ${marker}`);
    expect(a.stdout).not.toContain("Approved mine"); // approved already
    expect((await mcp(["list", "--no-check"])).stdout).toMatch(/evil\s+project.*\sapproved$/m);

    repo.evil = { command: "sh", args: ["-c", `touch ${marker}; echo changed`] };
    writeFileSync(file, JSON.stringify({ mcpServers: repo }, null, 2));
    expect((await mcp(["list", "--no-check"])).stdout).toMatch(/evil\s+project.*not approved/);
    expect((await mcp(["approve", "evil"])).stdout).toContain("Approved evil");
    expect((await mcp(["approve", "--revoke", "evil"])).stdout).toContain("Approval of evil withdrawn");
    expect((await mcp(["approve", "nothere"])).code).toBe(1);
    const rm = await mcp(["remove", "evil"]);
    expect(rm.code).toBe(0);
    expect(rm.stdout).toContain("(project:");
  });
});

describe("list --check and OAuth login", () => {
  let oauth: OAuthMcpServer;
  beforeAll(async () => {
    oauth = await startOAuthMcpServer();
  });
  afterAll(() => oauth.stop());

  test("a stdio server connects (its tool count), a broken one fails with the reason, a protected one needs login", async () => {
    expect((await mcp(["add", "echo", "--", process.execPath, ECHO_SERVER, "3"])).code).toBe(0);
    expect((await mcp(["add", "dead", "--", join(b.dir, "no-such-server")])).code).toBe(0);
    expect((await mcp(["add", "crash", "--", "sh", "-c", "echo 'missing API_KEY' >&2; exit 3"])).code).toBe(0);
    expect((await mcp(["add", "--transport", "http", "secure", oauth.url])).code).toBe(0);
    const l = await mcp(["list", "--check", "--timeout-ms", "15000"], { CHATCLI_NO_BROWSER: "1" });
    expect(l.code).toBe(0);
    expect(l.stdout).toMatch(/^echo\s+user\s+stdio\s+yes\s+.*connected \(4 tools\)$/m);
    expect(l.stdout).toMatch(/^mine\s+project\s+stdio\s+yes\s+.*approved; connected \(2 tools\)$/m);
    expect(l.stdout).toMatch(/^dead\s+user\s+stdio\s+yes\s+.*failed: .*no-such-server/m);
    expect(l.stdout).toMatch(/^crash\s+user\s+stdio\s+yes\s+.*failed: .*missing API_KEY$/m);
    expect(l.stdout).toMatch(/^secure\s+user\s+http\s+yes\s+.*needs login \(chatcli mcp login secure\)$/m);
  }, 60_000);

  test("mcp login: prints the URL, the test plays the browser, tokens land 0600; then list --check connects; logout", async () => {
    const proc = Bun.spawn([b.bin, "mcp", "login", "secure"], { cwd: project, env: { ...b.env, CHATCLI_NO_BROWSER: "1" }, stdout: "pipe", stderr: "pipe" });
    const reader = proc.stdout.getReader();
    let out = "";
    while (!/^https?:\/\/\S+$/m.test(out)) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    const url = /^(https?:\/\/\S+)$/m.exec(out)?.[1];
    expect(url).toStartWith(`${oauth.issuer}/authorize?`);
    expect(out).toContain("To log in to secure, open this URL in a browser:");
    const auth = await fetch(url!, { redirect: "manual" });
    const page = await fetch(auth.headers.get("location")!);
    expect(await page.text()).toContain("login complete");
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(await proc.exited).toBe(0);
    expect(out + rest).toContain("Logged in to secure.");
    const tokenFile = join(b.env.CHATCLI_HOME!, "mcp-oauth", "secure.json");
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = (readJson(tokenFile).tokens as { access_token: string }).access_token;
    expect(oauth.liveTokens()).toContain(token);

    const l = await mcp(["list", "--check"]);
    expect(l.stdout).toMatch(/^secure\s+user\s+http\s+yes\s+.*connected \(1 tools\)$/m);
    const got = (await mcp(["get", "secure"])).stdout;
    expect(got).toContain("OAuth login: logged in");
    expect(got).toContain("status: connected (1 tools)");
    // Secrets never reach the logs.
    const logs = join(b.env.CHATCLI_HOME!, "logs");
    if (existsSync(logs)) for (const f of Bun.spawnSync(["ls", logs]).stdout.toString().trim().split("\n").filter(Boolean)) expect(readFileSync(join(logs, f), "utf8")).not.toContain(token);

    const lo = await mcp(["logout", "secure"]);
    expect(lo).toMatchObject({ code: 0 });
    expect(lo.stdout).toContain("Logged out of secure");
    expect(existsSync(tokenFile)).toBe(false);
    expect((await mcp(["list", "--check"])).stdout).toMatch(/^secure\s.*needs login/m);
    // BROWSER names the browser to open (the usual convention); here one that follows the URL by itself.
    const viaBrowser = await mcp(["login", "secure"], { BROWSER: `${process.execPath} ${join(import.meta.dir, "..", "support", "fake-browser.ts")} %s` });
    expect(viaBrowser.code).toBe(0);
    expect(viaBrowser.stdout).toContain("Logged in to secure.");
    expect((await mcp(["list"])).stdout).toMatch(/^secure\s.*connected \(1 tools\)$/m);
    expect((await mcp(["logout", "secure"])).code).toBe(0);
    const stdio = await mcp(["login", "echo"]);
    expect(stdio.code).toBe(1);
    expect(stdio.stderr).toContain("stdio server");
  }, 60_000);
});

describe("mcp import", () => {
  test("reads Claude Code, Cursor, Codex, Gemini CLI and OpenCode files; reports imported / skipped / where; never overwrites", async () => {
    const home = b.home;
    writeFileSync(join(home, ".claude.json"), readFileSync(join(FIX, "claude", ".claude.json"), "utf8").replace("__PROJECT__", project));
    cpSync(join(FIX, "cursor", "mcp.json"), join(home, ".cursor", "mcp.json"));
    cpSync(join(FIX, "cursor-project", "mcp.json"), join(project, ".cursor", "mcp.json"));
    cpSync(join(FIX, "codex", "config.toml"), join(home, ".codex", "config.toml"));
    cpSync(join(FIX, "gemini", "settings.json"), join(home, ".gemini", "settings.json"));
    cpSync(join(FIX, "opencode", "opencode.jsonc"), join(b.env.XDG_CONFIG_HOME!, "opencode", "opencode.jsonc"));
    const before = readFileSync(settingsFile(), "utf8");

    const dry = await mcp(["import", "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("dry run, nothing written");
    expect(readFileSync(settingsFile(), "utf8")).toBe(before);

    const r = await mcp(["import"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Imported \d+ MCP server\(s\):$/m);
    expect(r.stdout).toContain(`  airtable  from claude ${join(home, ".claude.json")} → user (${settingsFile()})`);
    expect(r.stdout).toContain(`  docs-search (renamed from docs.search)  from codex ${join(home, ".codex", "config.toml")}`);
    expect(r.stdout).toContain(`  project-tool  from cursor ${join(project, ".cursor", "mcp.json")} → project (${join(project, ".mcp.json")})`);
    expect(r.stdout).toMatch(/^Skipped \d+:$/m);
    expect(r.stdout).toContain(`  chrome  from claude ${join(home, ".claude.json")}: unsupported: transport "ws" is not supported`);
    expect(r.stdout).toContain(`  airtable  from cursor ${join(home, ".cursor", "mcp.json")}: name clash with the server imported from ${join(home, ".claude.json")}`);
    expect(r.stdout).toContain(`  sentry  from cursor ${join(home, ".cursor", "mcp.json")}: the same server as in ${join(home, ".claude.json")}`);
    expect(r.stdout).toContain("chatcli mcp approve project-tool");
    expect(r.stdout).toContain(`${join(project, ".mcp.json")} (1 server(s), the format Claude Code and Cursor share) is read by chatcli as it is`);

    const s = servers(settingsFile());
    expect(s.figma).toEqual({ type: "http", url: "https://mcp.figma.com/mcp", headers: { "X-Figma-Region": "us-east-1", "X-Team": "${FIGMA_TEAM}" }, bearerTokenEnv: "FIGMA_OAUTH_TOKEN" });
    expect(s.echo?.command).toBe(process.execPath); // kept
    expect(readJson(settingsFile()).model).toBe("qwen3:8b");
    expect((await mcp(["list", "--no-check"])).stdout).toMatch(/^project-tool\s+project\s+stdio\s+yes\s+.*not approved/m);

    const again = await mcp(["import"]);
    expect(again.stdout).toContain("Imported 0 MCP server(s):");
    expect(again.stdout).toContain(`  sentry  from claude ${join(home, ".claude.json")}: configured already (user)`);
    expect(again.stdout).toContain(`  project-tool  from cursor ${join(project, ".cursor", "mcp.json")}: configured already (project)`);
  });

  test("pt-BR", async () => {
    const l = await mcp(["list", "--no-check"], { CHATCLI_LANG: "pt-BR" });
    expect(l.stdout).toMatch(/^NOME\s+ESCOPO\s+TRANSPORTE\s+ATIVO/);
    const e = await mcp(["remove", "nada"], { CHATCLI_LANG: "pt-BR" });
    expect(e.stderr).toContain("nenhum servidor MCP chamado nada");
  });
});
