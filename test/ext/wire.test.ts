// Skills, personas and custom commands checked on the wire: a real Session from wireSession against the fake
// Ollama server (its real NDJSON protocol), in a temp project holding the fixture files. What reaches the model —
// system prompt, tool list, model, tool results — is read from the recorded request bodies.
import { afterEach, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "../../src/llm/providers/index.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { resolveModel } from "../../src/cli/resolve-model.ts";
import { wireSession, type WiredSession } from "../../src/cli/wire-session.ts";
import { forgetDiscovery } from "../../src/ext/ext-discovery.ts";
import { handleExtSlash } from "../../src/ext/ext-slash.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import { startFakeOllama, type FakeOllama, type FakeReply } from "../support/fake-ollama.ts";

const F = join(import.meta.dir, "../fixtures/ext");
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

interface H {
  project: string;
  home: string;
  fake: FakeOllama;
  wired: WiredSession;
  events: AgentEvent[];
  run(text: string): Promise<void>;
}

async function harness(replies: FakeReply[], extraFiles: Record<string, string> = {}): Promise<H> {
  forgetDiscovery();
  const root = mkdtempSync(join(tmpdir(), "chatcli-ext-"));
  const project = join(root, "project");
  const home = join(root, "home");
  cpSync(join(F, "project"), project, { recursive: true });
  cpSync(join(F, "user"), home, { recursive: true });
  mkdirSync(join(project, ".git"), { recursive: true });
  for (const [rel, text] of Object.entries(extraFiles)) {
    mkdirSync(join(project, rel, ".."), { recursive: true });
    writeFileSync(join(project, rel), text);
  }
  const fake = startFakeOllama({
    models: [
      { name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] },
      { name: "llama3.2:3b", contextLength: 8192, capabilities: ["completion", "tools"] },
    ],
    replies,
    defaultReply: { text: "done" },
  });
  const env: Record<string, string> = { HOME: home, CHATCLI_HOME: join(home, ".chatcli"), TMPDIR: root, PATH: process.env.PATH ?? "/usr/bin:/bin", OLLAMA_HOST: fake.url, MAX_RETRIES: "0", CHATCLI_SANDBOX: "off" };
  const cfg = loadConfig({ cwd: project, env, flags: { provider: "OLLAMA", model: "qwen3:8b" } });
  const resolved = await resolveModel(cfg);
  // bypass: the policy would allow everything, so a refusal can only come from the persona or command.
  const wired = wireSession({ cfg, resolved, permissionMode: "bypass", interactive: false, record: false, summaries: false });
  const events: AgentEvent[] = [];
  wired.session.subscribe((e) => events.push(e));
  await wired.skills.ready();
  cleanups.push(() => {
    wired.dispose();
    fake.stop();
    rmSync(root, { recursive: true, force: true });
  });
  return {
    project,
    home,
    fake,
    wired,
    events,
    run: async (text) => {
      wired.session.submit({ type: "user_input", text });
      await wired.session.idle();
    },
  };
}

type Msg = { role: string; content: string; tool_calls?: unknown[] };
const system = (body: Record<string, unknown>) => (body.messages as Msg[]).filter((m) => m.role === "system").map((m) => m.content).join("\n");
const toolNames = (body: Record<string, unknown>) => ((body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((t) => t.function.name).sort();
const toolResults = (body: Record<string, unknown>) => (body.messages as Msg[]).filter((m) => m.role === "tool").map((m) => m.content);

describe("skills on the wire", () => {
  test("the catalog is in the first request; a trigger word puts the skill's body in the request it starts", async () => {
    const h = await harness([]);
    await h.run("please deploy the api to staging");
    const [first] = h.fake.chatRequests();
    const sys = system(first!);
    expect(sys).toContain("- pdf-forms: Fill in PDF forms");
    expect(sys).toContain("- changelog-writer: Write CHANGELOG entries");
    expect(sys).not.toContain("manual-only"); // disable-model-invocation: not offered to the model
    expect(sys).toContain("SKILL-BODY-MARKER: deploy-checklist");
    expect(sys).not.toContain("SKILL-BODY-MARKER: pdf-forms");
    expect(toolNames(first!)).toContain("skill");
    expect(h.events.some((e) => e.type === "notice" && e.text.includes("deploy-checklist") && e.text.includes('"deploy"'))).toBe(true);
    expect(h.wired.skills.activation("deploy-checklist")).toEqual({ kind: "trigger", trigger: "deploy" });
    // /clear: a new conversation, no skill active until something activates one again.
    h.wired.session.submit({ type: "clear" });
    expect(h.wired.skills.activation("deploy-checklist")).toBeUndefined();
    await h.run("hello");
    expect(system(h.fake.chatRequests().at(-1)!)).not.toContain("SKILL-BODY-MARKER: deploy-checklist");
  });

  test("a file a tool touches that matches a skill's paths activates it for the next request", async () => {
    const h = await harness([{ toolCalls: [{ name: "read", arguments: { path: "src/components/Button.tsx" } }] }, { text: "read it" }]);
    await h.run("what does the button do?");
    const [first, second] = h.fake.chatRequests();
    expect(system(first!)).not.toContain("SKILL-BODY-MARKER: react-components");
    expect(system(second!)).toContain("SKILL-BODY-MARKER: react-components");
    expect(h.wired.skills.activation("react-components")).toMatchObject({ kind: "path", path: "src/components/Button.tsx" });
  });

  test("a path mentioned in the prompt activates the skill at once", async () => {
    const h = await harness([]);
    await h.run("tidy up @src/components/Button.tsx please");
    expect(system(h.fake.chatRequests()[0]!)).toContain("SKILL-BODY-MARKER: react-components");
  });
});

describe("an active skill's body is bounded by the window", () => {
  test("a body too big for its share is cut and names its file", async () => {
    const big = "---\nname: huge\ndescription: A huge skill.\ntriggers: [enormous]\n---\n" + "Instruction line. ".repeat(4_000);
    const h = await harness([], { ".chatcli/skills/huge/SKILL.md": big });
    await h.run("an enormous task");
    const sys = system(h.fake.chatRequests()[0]!);
    expect(sys).toContain("Instruction line.");
    expect(sys).toContain(`read the rest of ${join(h.project, ".chatcli/skills/huge/SKILL.md")}`);
    expect(sys.length).toBeLessThan(big.length);
  });
});

describe("the user's /skill-name", () => {
  test("loads the skill for the next request, or sends the request typed after its name with it", async () => {
    const h = await harness([]);
    expect(await handleExtSlash(h.wired.skills, "sql-style", "")).toContain("sql-style");
    await h.run("write the report query");
    expect(system(h.fake.chatRequests()[0]!)).toContain("SKILL-BODY-MARKER: sql-style");
    expect(h.wired.skills.activation("sql-style")).toEqual({ kind: "user" });
    // With a request after the name, that request is sent with the skill loaded.
    expect(await handleExtSlash(h.wired.skills, "changelog-writer", "draft the notes")).toBe("");
    await h.wired.session.idle();
    const last = h.fake.chatRequests().at(-1)!;
    expect(system(last)).toContain("SKILL-BODY-MARKER: changelog-writer");
    expect((last.messages as Msg[]).filter((m) => m.role === "user").at(-1)!.content).toContain("draft the notes");
  });
});

describe("the skill tool", () => {
  test("returns the body; the skill folder is on the read allowlist; a user-only skill is refused", async () => {
    const h = await harness([]);
    const skillFile = join(h.home, ".chatcli/skills/sql-style/SKILL.md");
    h.fake.enqueue({ toolCalls: [{ name: "skill", arguments: { name: "sql-style" } }] }, { toolCalls: [{ name: "read", arguments: { path: skillFile } }] }, { toolCalls: [{ name: "skill", arguments: { name: "manual-only" } }] }, { toolCalls: [{ name: "read", arguments: { path: join(h.home, ".chatcli/commands/draftpr.md") } }] }, { text: "ok" });
    await h.run("format my statements");
    const reqs = h.fake.chatRequests();
    expect(toolResults(reqs[1]!).at(-1)).toContain("SKILL-BODY-MARKER: sql-style");
    const readResult = toolResults(reqs[2]!).at(-1)!;
    expect(readResult).toContain("Uppercase keywords");
    expect(toolResults(reqs[3]!).at(-1)).toContain('no skill "manual-only"');
    // Outside a skill folder the home is not readable: the allowlist was widened by the folder only.
    expect(h.events.find((e) => e.type === "tool.completed" && e.name === "read" && e.result.includes("draftpr"))).toMatchObject({ isError: true });
    expect(h.wired.skills.activation("sql-style")).toEqual({ kind: "model" });
  });
});

describe("personas on the wire", () => {
  test("/agent reviewer: its prompt replaces the role, write and edit are gone, a write call is refused", async () => {
    const h = await harness([{ toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "x" } }] }, { text: "I cannot write" }], { "AGENTS.md": "WORKSPACE-RULES-MARKER\n" });
    expect(await handleExtSlash(h.wired.skills, "agent", "reviewer")).toContain("reviewer");
    await h.run("review the last change");
    const [first, second] = h.fake.chatRequests();
    const sys = system(first!);
    expect(sys).toStartWith("You are a code reviewer.");
    expect(sys).not.toContain("You are chatcli, an AI coding agent");
    expect(sys).toContain(`Project root: ${h.project}`);
    expect(sys).toContain("WORKSPACE-RULES-MARKER"); // workspace files stay
    expect(toolNames(first!)).toEqual(["exec", "glob", "read", "search", "skill", "tree"]);
    const refused = toolResults(second!).at(-1)!;
    expect(refused).toContain('The tool "write" is not available to the persona "reviewer"');
    expect(existsSync(join(h.project, "notes.txt"))).toBe(false);
    const done = h.events.find((e) => e.type === "tool.completed" && e.name === "write");
    expect(done).toMatchObject({ isError: true, errorCode: "tool_not_allowed" });
    expect(h.events.some((e) => e.type === "persona.changed" && e.name === "reviewer")).toBe(true);

    // Back to no persona: every tool and the base prompt again.
    await handleExtSlash(h.wired.skills, "agent", "off");
    await h.run("now write it");
    const third = h.fake.chatRequests().at(-1)!;
    expect(toolNames(third)).toContain("write");
    expect(system(third)).toStartWith("You are chatcli");
  });

  test("a persona's model, permission mode (narrowed only) and skills apply, and are put back when it is left", async () => {
    const h = await harness([]);
    h.wired.skills.setPersona("db-expert");
    await h.wired.session.idle();
    expect(h.wired.session.mode).toBe("plan");
    await h.run("which tables hold orders?");
    const req = h.fake.chatRequests().at(-1)!;
    expect(req.model).toBe("llama3.2:3b");
    expect(toolNames(req)).toEqual(["read", "search", "skill"]);
    expect(system(req)).toContain("PERSONA-MARKER: db-expert");
    expect(system(req)).toContain("SKILL-BODY-MARKER: sql-style");
    h.wired.skills.setPersona(undefined);
    await h.wired.session.idle();
    expect(h.wired.session.mode).toBe("bypass");
    await h.run("and now?");
    expect(h.fake.chatRequests().at(-1)!.model).toBe("qwen3:8b");
  });

  test("a repository persona cannot widen the permission mode", async () => {
    const h = await harness([]);
    h.wired.session.submit({ type: "set_permission_mode", mode: "default" });
    const note = h.wired.skills.setPersona("wide-open");
    expect(note).toContain("bypass");
    expect(h.wired.session.mode).toBe("default");
  });
});

describe("a persona's maxTurns", () => {
  test("lowers the session's turn limit while the persona is on", async () => {
    const again = { toolCalls: [{ name: "read", arguments: { path: "src/components/Button.tsx" } }] };
    const h = await harness([again, again, again, again], { ".chatcli/agents/brief.md": "---\nname: brief\ndescription: Two turns at most.\nmaxTurns: 2\n---\nBe brief.\n" });
    h.wired.skills.setPersona("brief");
    await h.run("look around");
    expect(h.fake.chatRequests()).toHaveLength(2);
    expect(h.events.find((e) => e.type === "turn.completed")).toMatchObject({ stopReason: "max_turns" });
  });
});

describe("custom commands on the wire", () => {
  test("arguments are expanded, allowed-tools narrow that run only, then every tool is back", async () => {
    const h = await harness([{ toolCalls: [{ name: "write", arguments: { path: "fix.txt", content: "x" } }] }, { text: "fixed" }]);
    expect(await handleExtSlash(h.wired.skills, "fix-issue", "42")).toBe("");
    await h.wired.session.idle();
    const [first, second] = h.fake.chatRequests();
    const user = (first!.messages as Msg[]).filter((m) => m.role === "user").at(-1)!.content;
    expect(user).toContain("Please analyze and fix the GitHub issue: 42.");
    expect(toolNames(first!)).toEqual(["edit", "exec", "read", "skill"]);
    expect(toolResults(second!).at(-1)).toContain("/fix-issue");
    expect(existsSync(join(h.project, "fix.txt"))).toBe(false);
    await h.run("something else");
    expect(toolNames(h.fake.chatRequests().at(-1)!)).toContain("write");
  });

  test("$1/$2 and an @path mention: the file is attached like a typed one", async () => {
    const h = await harness([]);
    await handleExtSlash(h.wired.skills, "review-file", 'src/components/Button.tsx "naming"');
    await h.wired.session.idle();
    const user = (h.fake.chatRequests()[0]!.messages as Msg[]).filter((m) => m.role === "user").at(-1)!.content;
    expect(user).toContain("Review the file src/components/Button.tsx with a focus on naming.");
    expect(user).toContain("export function Button()");
  });
});
