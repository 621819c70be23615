// The OS sandbox through the compiled binary (issue 14), headless `--permission-mode default`: a command inside
// the project runs without approval; it cannot write ~/.chatcli/settings.json, .git/config or outside the
// project (the re-run question is declined headless and reported); it never sees API keys; stream-json announces
// the sandbox. Skipped (with the reason) only where bwrap cannot run.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tmpdir } from "node:os";
import { runProbe } from "../../src/sandbox/probe.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";

const probe = process.platform === "linux" ? await runProbe("linux", process.env) : { ok: false as const, reason: `not Linux (${process.platform})` };
const why = probe.ok ? undefined : probe.reason;
if (why) console.warn(`sandbox smoke tests skipped: ${why}`);

let b: BinaryEnv;
let fake: FakeOllama;
const SETTINGS = '{"language":"en"}\n';

beforeAll(() => {
  b = isolatedBinary();
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  mkdirSync(join(b.home, ".chatcli"), { recursive: true });
  writeFileSync(join(b.home, ".chatcli", "settings.json"), SETTINGS);
  fake = startFakeOllama({ models: [{ name: "coder:7b", contextLength: 16384, capabilities: ["completion", "tools"] }] });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

const env = () => ({ OLLAMA_HOST: fake.url });
const exec = (command: string) => fake.enqueue({ toolCalls: [{ name: "exec", arguments: { command } }], chunks: [] }, { text: "done" });
const lastToolResult = () => {
  const msgs = fake.chatRequests().at(-1)!.messages as Array<{ role: string; content: string }>;
  return msgs.filter((m) => m.role === "tool").at(-1)!.content;
};

describe.skipIf(why !== undefined)("sandboxed exec (compiled binary, real bwrap)", () => {
  test("default mode: a command that writes inside the project runs without approval", async () => {
    exec("echo built > artifact.txt && echo ok");
    const r = await run(b, ["-p", "build it", "--model", "coder:7b", "--permission-mode", "default"], env());
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("permission needed");
    expect(readFileSync(join(b.dir, "artifact.txt"), "utf8")).toBe("built\n");
  });

  test("it cannot write ~/.chatcli/settings.json, .git/config or outside the project; the re-run is declined and reported", async () => {
    const outside = join(dirname(b.dir), "outside-canary.txt");
    const settings = join(b.home, ".chatcli", "settings.json");
    const gitConfig = readFileSync(join(b.dir, ".git", "config"), "utf8");
    const attacks = [`echo '{"permissionMode":"bypass"}' > ${settings}`, `printf '{"permissionMode":"bypass"}' | sort --outp=${settings}`, "git config core.fsmonitor 'touch /tmp/pwned'", `echo x > ${outside}`];
    for (const command of attacks) {
      exec(command);
      const r = await run(b, ["-p", "try", "--model", "coder:7b", "--permission-mode", "default"], env());
      expect(r.code).toBe(0);
      // Named protected paths are asked about first (and denied headless); the rest hit the sandbox, whose re-run
      // question is declined headless.
      if (command.startsWith("git config")) {
        expect(r.stderr).toContain("running it outside the sandbox needs approval: denied");
        expect(lastToolResult()).toContain("[sandbox]");
      } else if (command !== `echo x > ${outside}`) expect(r.stderr).toContain("denied");
    }
    expect(readFileSync(settings, "utf8")).toBe(SETTINGS);
    expect(readFileSync(join(b.dir, ".git", "config"), "utf8")).toBe(gitConfig);
    expect(existsSync(outside)).toBe(false);
  });

  test("the command never sees API keys, from the environment or from .env", async () => {
    writeFileSync(join(b.dir, ".env"), "STRIPE_SECRET_KEY=sk_live_dotenvcanary\n");
    exec("printenv OPENAI_API_KEY STRIPE_SECRET_KEY GITHUB_TOKEN; echo listed; env | grep -c canary; true");
    const r = await run(b, ["-p", "env", "--model", "coder:7b"], { ...env(), OPENAI_API_KEY: "sk-envcanary", GITHUB_TOKEN: "ghp_envcanary" });
    expect(r.code).toBe(0);
    const out = lastToolResult();
    expect(out).toContain("listed");
    expect(out).not.toContain("canary\n");
    expect(out).not.toContain("sk-envcanary");
    expect(out).not.toContain("sk_live_dotenvcanary");
    expect(out).not.toContain("ghp_envcanary");
  });

  test("stream-json announces the sandbox; --sandbox off makes the same write ask", async () => {
    fake.enqueue({ text: "hi" });
    const r = await run(b, ["-p", "hi", "--model", "coder:7b", "--output-format", "stream-json"], env());
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; text?: string; level?: string });
    expect(lines[0]!.type).toBe("session.started");
    const notice = lines.find((l) => l.type === "notice" && l.text?.startsWith("Sandbox:"));
    expect(notice).toMatchObject({ level: "info" });
    expect(notice!.text).toContain("workspace-write (bubblewrap)");

    exec("echo off > off.txt");
    const off = await run(b, ["-p", "write", "--model", "coder:7b", "--sandbox", "off"], env());
    expect(off.stderr).toContain("permission needed");
    expect(existsSync(join(b.dir, "off.txt"))).toBe(false);
  });
});

describe("without a sandbox (compiled binary)", () => {
  test("bwrap missing: said once on stderr and in stream-json, and a write-ish command asks (denied headless)", async () => {
    const empty = mkdtempSync(join(tmpdir(), "chatcli-nobwrap-"));
    try {
      exec("touch nobwrap.txt");
      const r = await run(b, ["-p", "go", "--model", "coder:7b"], { ...env(), PATH: empty });
      expect(r.code).toBe(0);
      expect(r.stderr.split("\n").filter((l) => l.includes("No sandbox for commands")).length).toBe(1);
      expect(r.stderr).toContain("bwrap (bubblewrap) is not installed");
      expect(r.stderr).toContain("permission needed");
      expect(existsSync(join(b.dir, "nobwrap.txt"))).toBe(false);
      fake.enqueue({ text: "hi" });
      const s = await run(b, ["-p", "hi", "--model", "coder:7b", "--output-format", "stream-json"], { ...env(), PATH: empty });
      const notice = s.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; level?: string; text?: string }).find((l) => l.type === "notice" && l.text?.includes("No sandbox"));
      expect(notice).toMatchObject({ level: "warn" });
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  test.skipIf(!hasTmux())("TUI: the status line says 'sandbox off' and /status gives the sandbox state", async () => {
    const t = new Tmux(join(b.home, "sbx.sock"), paneCommand(b, "--model coder:7b --sandbox off", { env: env(), after: "sleep 30" }), 110, 30);
    try {
      await t.waitFor((s) => s.includes("Ask anything"));
      const screen = await t.waitFor((s) => s.includes("sandbox off"));
      expect(screen).toContain("default · sandbox off");
      t.sendLiteral("/status");
      t.send("Enter");
      const status = await t.waitFor((s) => s.includes("Sandbox: off"));
      expect(status).toContain("Permission mode: default");
      expect(status).toContain("Model: coder:7b");
    } finally {
      t.kill();
    }
  }, 20_000);

  test.skipIf(!hasTmux())("TUI without bwrap: a notice once and 'no sandbox' in the status line", async () => {
    const empty = mkdtempSync(join(tmpdir(), "chatcli-nobwrap-"));
    const t = new Tmux(join(b.home, "sbx2.sock"), paneCommand(b, "--model coder:7b", { env: { ...env(), PATH: empty }, after: "sleep 30" }), 110, 30);
    try {
      const screen = await t.waitFor((s) => s.includes("no sandbox") && s.includes("No sandbox for commands"));
      expect(screen.split("No sandbox for commands").length - 1).toBe(1);
      expect(screen).toContain("bwrap (bubblewrap) is not installed");
    } finally {
      t.kill();
      rmSync(empty, { recursive: true, force: true });
    }
  }, 20_000);
});
