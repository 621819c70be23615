// Skills, personas and custom commands through the compiled binary (issue 18), headless and in the TUI (tmux),
// against the fake Ollama server, in a project holding the fixture files (Claude Code, Codex and malformed ones).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";

const F = join(import.meta.dir, "../fixtures/ext");
let b: BinaryEnv;
let fake: FakeOllama;

beforeAll(() => {
  b = isolatedBinary();
  cpSync(join(F, "project"), b.dir, { recursive: true });
  cpSync(join(F, "user"), b.home, { recursive: true });
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] }], defaultReply: { text: "all done" } });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

const env = () => ({ OLLAMA_HOST: fake.url, CHATCLI_SANDBOX: "off" });
type Msg = { role: string; content: string };
const systemOf = (body: Record<string, unknown>) => (body.messages as Msg[]).filter((m) => m.role === "system").map((m) => m.content).join("\n");
const lastUser = (body: Record<string, unknown>) => (body.messages as Msg[]).filter((m) => m.role === "user").at(-1)?.content ?? "";
const toolNames = (body: Record<string, unknown>) => ((body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((t) => t.function.name);

describe("headless (compiled binary)", () => {
  test("a trigger word activates a project skill: its body is in the request; malformed files are named on stderr", async () => {
    const before = fake.chatRequests().length;
    const r = await run(b, ["-p", "time to deploy the service", "--model", "qwen3:8b"], env());
    expect(r.code).toBe(0);
    const req = fake.chatRequests()[before]!;
    expect(systemOf(req)).toContain("SKILL-BODY-MARKER: deploy-checklist");
    expect(systemOf(req)).toContain("- pdf-forms: Fill in PDF forms");
    expect(r.stderr).toContain("broken-yaml/SKILL.md");
    expect(r.stderr).toContain("no closing --- line");
  }, 30_000);

  test("--agent reviewer: write is not offered and a write call is refused with an error result", async () => {
    fake.enqueue({ toolCalls: [{ name: "write", arguments: { path: "review.txt", content: "x" } }], chunks: [] }, { text: "I only review." });
    const before = fake.chatRequests().length;
    const r = await run(b, ["-p", "review the code", "--model", "qwen3:8b", "--agent", "reviewer", "--permission-mode", "bypass", "--output-format", "stream-json"], env());
    expect(r.code).toBe(0);
    const [first, second] = fake.chatRequests().slice(before);
    expect(systemOf(first!)).toStartWith("You are a code reviewer.");
    expect(toolNames(first!)).not.toContain("write");
    const toolMsg = (second!.messages as Msg[]).filter((m) => m.role === "tool").at(-1)!;
    expect(toolMsg.content).toContain('The tool "write" is not available to the persona "reviewer"');
    const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; name?: string; isError?: boolean; errorCode?: string });
    expect(events.find((e) => e.type === "tool.completed")).toMatchObject({ name: "write", isError: true, errorCode: "tool_not_allowed" });
    expect(events.find((e) => e.type === "persona.changed")).toMatchObject({ name: "reviewer" });
    expect(existsSync(join(b.dir, "review.txt"))).toBe(false);
  }, 30_000);

  test("a custom command with arguments is expanded (and its @path attached)", async () => {
    const before = fake.chatRequests().length;
    const r = await run(b, ["-p", "/review-file src/components/Button.tsx naming", "--model", "qwen3:8b"], env());
    expect(r.code).toBe(0);
    const user = lastUser(fake.chatRequests()[before]!);
    expect(user).toContain("Review the file src/components/Button.tsx with a focus on naming.");
    expect(user).toContain("export function Button()");
  }, 30_000);

  test("chatcli agents lists and init writes the built-ins; an unknown --agent is a usage error", async () => {
    const list = await run(b, ["agents"], env());
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("security-auditor");
    expect(list.stdout).toContain("code-reviewer");
    const tmp = mkdtempSync(join(b.dir, "..", "init-"));
    Bun.spawnSync(["git", "init", "-q"], { cwd: tmp });
    const proc = Bun.spawnSync([b.bin, "agents", "init"], { cwd: tmp, env: { ...b.env } });
    expect(proc.exitCode).toBe(0);
    const files = readdirSync(join(tmp, ".chatcli/agents")).sort();
    expect(files).toEqual(["coder.md", "devops.md", "documenter.md", "explore.md", "general.md", "planner.md", "refactorer.md", "reviewer.md", "security-auditor.md", "tester.md"]);
    expect(readFileSync(join(tmp, ".chatcli/agents/reviewer.md"), "utf8")).toContain("tools: read, search, glob, tree, exec");
    rmSync(tmp, { recursive: true, force: true });
    const bad = await run(b, ["-p", "x", "--agent", "nobody", "--model", "qwen3:8b"], env());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown agent "nobody"');
  }, 30_000);
});

const statusLine = (screen: string) => screen.split("\n").filter((l) => l.includes(" · ")).at(-1) ?? "";

describe.skipIf(!hasTmux())("TUI (compiled binary in tmux)", () => {
  test("trigger skill, /agent reviewer refusing a write, a custom command, completion marks project commands", async () => {
    const t = new Tmux(join(b.dir, "..", `tmux-${Math.random().toString(36).slice(2, 8)}.sock`), paneCommand(b, "--model qwen3:8b --permission-mode bypass", { env: env() }), 110, 34);
    try {
      await t.waitFor((s) => statusLine(s).includes("qwen3:8b"), 15_000);
      let before = fake.chatRequests().length;
      t.sendLiteral("we need to deploy today");
      t.send("Enter");
      await t.waitFor(() => fake.chatRequests().length > before, 10_000);
      expect(systemOf(fake.chatRequests()[before]!)).toContain("SKILL-BODY-MARKER: deploy-checklist");
      await t.waitFor((s) => s.includes("all done"));

      t.sendLiteral("/agent reviewer");
      t.send("Enter");
      await t.waitFor((s) => statusLine(s).includes("agent: reviewer"));
      fake.enqueue({ toolCalls: [{ name: "write", arguments: { path: "tui-review.txt", content: "x" } }], chunks: [] }, { text: "reviewed only" });
      before = fake.chatRequests().length;
      t.sendLiteral("check the code");
      t.send("Enter");
      await t.waitFor((s) => s.includes("reviewed only"), 10_000);
      const reqs = fake.chatRequests().slice(before);
      expect(toolNames(reqs[0]!)).not.toContain("write");
      expect((reqs[1]!.messages as Msg[]).filter((m) => m.role === "tool").at(-1)!.content).toContain("not available to the persona");
      expect(existsSync(join(b.dir, "tui-review.txt"))).toBe(false);

      t.sendLiteral("/revi");
      await t.waitFor((s) => s.includes("/review-file") && s.includes("(project)"));
      for (let i = 0; i < 5; i++) t.send("BSpace");
      await t.waitFor((s) => !s.includes("/review-file"));
      before = fake.chatRequests().length;
      t.sendLiteral("/fix-issue 77");
      t.send("Enter");
      await t.waitFor(() => fake.chatRequests().length > before, 10_000);
      expect(lastUser(fake.chatRequests()[before]!)).toContain("Please analyze and fix the GitHub issue: 77.");
      await t.waitFor((s) => s.includes("fix the GitHub issue: 77"));
    } finally {
      t.kill();
    }
  }, 60_000);

  test("--agent reviewer: the status line shows it from the start and write is not offered", async () => {
    const t = new Tmux(join(b.dir, "..", `tmux-${Math.random().toString(36).slice(2, 8)}.sock`), paneCommand(b, "--model qwen3:8b --agent reviewer", { env: env() }), 110, 34);
    try {
      await t.waitFor((s) => statusLine(s).includes("agent: reviewer"), 15_000);
      const before = fake.chatRequests().length;
      t.sendLiteral("hello");
      t.send("Enter");
      await t.waitFor(() => fake.chatRequests().length > before, 10_000);
      const req = fake.chatRequests()[before]!;
      expect(systemOf(req)).toStartWith("You are a code reviewer.");
      expect(toolNames(req)).not.toContain("write");
    } finally {
      t.kill();
    }
  }, 60_000);
});
