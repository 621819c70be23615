import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config/load-config.ts";
import { parseDotenv } from "../../src/config/dotenv.ts";
import { findProjectRoot } from "../../src/config/paths.ts";

let dir: string;
let home: string;
let project: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-cfg-"));
  home = join(dir, "home");
  project = join(dir, "proj");
  mkdirSync(join(home), { recursive: true });
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(join(project, ".chatcli"), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const load = (env: Record<string, string> = {}, flags = {}) => loadConfig({ cwd: project, env: { CHATCLI_HOME: home, ...env }, flags });

describe("loadConfig precedence", () => {
  test("defaults: Ollama, no model, default permission mode", () => {
    const c = load();
    expect(c.provider).toBe("OLLAMA");
    expect(c.model).toBeUndefined();
    expect(c.permissionMode).toBe("default");
    expect(c.projectRoot).toBe(project);
  });

  test("flags > env > project > user", () => {
    writeFileSync(join(home, "settings.json"), JSON.stringify({ provider: "openai", model: "user-model" }));
    expect(load().model).toBe("user-model");
    expect(load().provider).toBe("OPENAI");
    writeFileSync(join(project, ".chatcli", "settings.json"), JSON.stringify({ model: "project-model" }));
    expect(load().model).toBe("project-model");
    expect(load().provider).toBe("OPENAI");
    expect(load({ LLM_MODEL: "env-model", LLM_PROVIDER: "claudeai" }).model).toBe("env-model");
    expect(load({ LLM_PROVIDER: "claudeai" }).provider).toBe("CLAUDEAI");
    const c = load({ LLM_MODEL: "env-model" }, { model: "flag-model", provider: "googleai" });
    expect(c.model).toBe("flag-model");
    expect(c.modelSource).toBe("flag");
    expect(c.provider).toBe("GOOGLEAI");
  });

  test(".env in the working dir fills unset vars only; CHATCLI_DOTENV names another", () => {
    writeFileSync(join(project, ".env"), "LLM_MODEL=from-dotenv\nexport OLLAMA_HOST='http://h:1'\n# comment\n");
    expect(load().model).toBe("from-dotenv");
    expect(load().env.OLLAMA_HOST).toBe("http://h:1");
    expect(load({ LLM_MODEL: "real-env" }).model).toBe("real-env");
    writeFileSync(join(dir, "other.env"), "LLM_MODEL=other\n");
    expect(load({ CHATCLI_DOTENV: join(dir, "other.env") }).model).toBe("other");
    expect(() => load({ CHATCLI_DOTENV: join(dir, "missing.env") })).toThrow(/missing\.env/);
  });

  test("invalid settings name the file, the key and what is expected", () => {
    const file = join(project, ".chatcli", "settings.json");
    writeFileSync(file, JSON.stringify({ contextWindow: "big" }));
    let err: unknown;
    try {
      load();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    expect(msg).toContain(file);
    expect(msg).toContain('"contextWindow"');
    expect(msg).toContain("expected number");
  });

  test("enum keys say which values are allowed; broken JSON says so", () => {
    writeFileSync(join(home, "settings.json"), JSON.stringify({ ui: { screen: "tiny" } }));
    expect(() => load()).toThrow(/"ui\.screen".*"fullscreen", "inline"/);
    writeFileSync(join(home, "settings.json"), "{ nope");
    expect(() => load()).toThrow(/not valid JSON/);
  });

  test("every bad key is listed at once, one per line", () => {
    const file = join(project, ".chatcli", "settings.json");
    writeFileSync(file, JSON.stringify({ contextWindow: "big", permissionMode: "yolo", ui: { screen: "tiny" }, sandbox: { network: "yes" } }));
    let msg = "";
    try {
      load();
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toContain(file);
    for (const key of ['"contextWindow"', '"permissionMode"', '"ui.screen"', '"sandbox.network"']) expect(msg).toContain(key);
    expect(msg.split("\n").filter((l) => l.includes("key \"")).length).toBe(4);
  });

  test("problems in the user and the project settings are reported together", () => {
    writeFileSync(join(home, "settings.json"), JSON.stringify({ contextWindow: "big" }));
    writeFileSync(join(project, ".chatcli", "settings.json"), "{ nope");
    let msg = "";
    try {
      load();
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toContain(join(home, "settings.json"));
    expect(msg).toContain('"contextWindow"');
    expect(msg).toContain(join(project, ".chatcli", "settings.json"));
    expect(msg).toContain("line 1, column 3");
  });

  test("broken JSON names the line and column of the first error", () => {
    const file = join(home, "settings.json");
    writeFileSync(file, '{\n  "model": "m",\n  "provider": "ollama"\n  "permissionMode": "default"\n}\n');
    expect(() => load()).toThrow(/line 4, column 3: found "\\"" where "," or "}" should be/);
    writeFileSync(file, '{\n  "model": "m",\n}');
    expect(() => load()).toThrow(/line 3, column 1: found "}" where a quoted key should be/);
    writeFileSync(file, '{"model": "m"');
    expect(() => load()).toThrow(/line 1, column 14: found the end of the file/);
  });

  test("unknown keys are warnings, not errors", () => {
    writeFileSync(join(home, "settings.json"), JSON.stringify({ modle: "x", model: "m" }));
    const c = load();
    expect(c.model).toBe("m");
    expect(c.warnings.join("\n")).toContain('unknown key "modle"');
  });
});

describe("dotenv and project root", () => {
  test("parses quotes, escapes and comments", () => {
    expect(parseDotenv('A=1\nB="x\\ny"\nC=\'raw $x\'\nD=v # note\n  # c\nexport E=e')).toEqual({ A: "1", B: "x\ny", C: "raw $x", D: "v", E: "e" });
  });

  test(".agent/ wins over .git/ when walking up", () => {
    const nested = join(project, "a", "b");
    mkdirSync(nested, { recursive: true });
    expect(findProjectRoot(nested)).toBe(project);
    mkdirSync(join(dir, ".agent"));
    expect(findProjectRoot(nested)).toBe(dir);
  });
});

describe("sandbox configuration", () => {
  test("default workspace-write, network closed, no allowlist", () => {
    expect(load().sandbox).toEqual({ mode: "workspace-write", network: false, envAllow: [] });
  });

  test("flag > CHATCLI_SANDBOX > project settings > user settings; network and env from settings", () => {
    writeFileSync(join(home, "settings.json"), JSON.stringify({ sandbox: { mode: "read-only", network: true, env: ["NPM_TOKEN"] } }));
    expect(load().sandbox).toEqual({ mode: "read-only", network: true, envAllow: ["NPM_TOKEN"] });
    writeFileSync(join(project, ".chatcli", "settings.json"), JSON.stringify({ sandbox: { mode: "workspace-write" } }));
    expect(load().sandbox).toEqual({ mode: "workspace-write", network: true, envAllow: ["NPM_TOKEN"] });
    expect(load({ CHATCLI_SANDBOX: "off" }).sandbox.mode).toBe("off");
    expect(load({ CHATCLI_SANDBOX: "off" }, { sandbox: "read-only" }).sandbox.mode).toBe("read-only");
  });

  test("CHATCLI_SANDBOX in .env is ignored (a command could have written it); a bad value warns and is ignored", () => {
    writeFileSync(join(project, ".env"), "CHATCLI_SANDBOX=off\n");
    expect(load().sandbox.mode).toBe("workspace-write");
    const c = load({ CHATCLI_SANDBOX: "nope" });
    expect(c.sandbox.mode).toBe("workspace-write");
    expect(c.warnings.join("\n")).toContain("CHATCLI_SANDBOX=nope");
  });

  test("a wrong sandbox setting stops with the key named", () => {
    writeFileSync(join(home, "settings.json"), JSON.stringify({ sandbox: { mode: "wide-open" } }));
    expect(() => load()).toThrow(/sandbox\.mode/);
  });
});

describe("repository content cannot widen what the agent may do (issue 14)", () => {
  test(".env cannot grant bypass, turn the sandbox off, move chatcli's home or add read roots", () => {
    const elsewhere = join(dir, "attacker-home");
    writeFileSync(
      join(project, ".env"),
      `CHATCLI_PERMISSION_MODE=bypass\nCHATCLI_SANDBOX=off\nCHATCLI_HOME=${elsewhere}\nCHATCLI_AGENT_EXTRA_READ_PATHS=/\nOPENAI_API_KEY=sk-from-dotenv\n`,
    );
    const c = loadConfig({ cwd: project, env: {}, flags: {} });
    expect(c.permissionMode).toBe("default");
    expect(c.sandbox.mode).toBe("workspace-write");
    expect(c.home).not.toBe(elsewhere);
    expect(c.env.CHATCLI_AGENT_EXTRA_READ_PATHS).toBeUndefined();
    expect(c.env.OPENAI_API_KEY).toBe("sk-from-dotenv");
    for (const key of ["CHATCLI_PERMISSION_MODE", "CHATCLI_SANDBOX", "CHATCLI_HOME", "CHATCLI_AGENT_EXTRA_READ_PATHS"]) {
      expect(c.warnings.some((w) => w.includes(key) && w.includes(".env"))).toBe(true);
    }
  });

  test(".env may still tighten: plan mode is taken", () => {
    writeFileSync(join(project, ".env"), "CHATCLI_PERMISSION_MODE=plan\n");
    expect(load().permissionMode).toBe("plan");
  });

  test("project settings cannot set bypass, sandbox off, network or secret env; user settings can", () => {
    const widening = { permissionMode: "bypass", sandbox: { mode: "off", network: true, env: ["OPENAI_API_KEY"] } };
    writeFileSync(join(project, ".chatcli", "settings.json"), JSON.stringify(widening));
    const p = load();
    expect(p.permissionMode).toBe("default");
    expect(p.sandbox).toEqual({ mode: "workspace-write", network: false, envAllow: [] });
    expect(p.warnings.filter((w) => w.includes("ignored in project settings")).length).toBe(4);
    writeFileSync(join(project, ".chatcli", "settings.json"), JSON.stringify({ sandbox: { mode: "read-only" } }));
    expect(load().sandbox.mode).toBe("read-only");
    rmSync(join(project, ".chatcli", "settings.json"));
    writeFileSync(join(home, "settings.json"), JSON.stringify(widening));
    const u = load();
    expect(u.permissionMode).toBe("bypass");
    expect(u.sandbox).toEqual({ mode: "off", network: true, envAllow: ["OPENAI_API_KEY"] });
  });
});
