// Memory (issue 21) end to end through the compiled binary against the fake Ollama: session 1 states a preference
// in --no-tui mode; when it goes idle the worker asks the model (the same local Ollama) for memories and the fact
// lands in the inbox (propose, the default); `chatcli memory accept` takes it; session 2 in the same project sends
// it in its system prompt, a session in another project does not — unless the fact is user scope.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, runAt, Tmux, type BinaryEnv } from "../support/binary.ts";

const MODEL = "qwen3:8b";
const FAST = "qwen3:0.6b";
let b: BinaryEnv;
let fake: FakeOllama;
let extraction: string[] = [];
let projectA: string;
let projectB: string;

const isExtraction = (body: Record<string, unknown>) => JSON.stringify(body.messages ?? "").includes("You keep the long-term memory of a coding assistant");

beforeAll(() => {
  b = isolatedBinary();
  projectA = join(b.dir, "alpha");
  projectB = join(b.dir, "beta");
  for (const p of [projectA, projectB]) mkdirSync(join(p, ".git"), { recursive: true });
  fake = startFakeOllama({
    models: [
      { name: MODEL, contextLength: 32768, capabilities: ["completion", "tools"] },
      { name: FAST, contextLength: 8192, capabilities: ["completion"] },
    ],
    defaultReply: { text: "Sure." },
    route: (body) => (isExtraction(body) ? { text: extraction.shift() ?? "NOTHING_NEW" } : undefined),
  });
});
afterAll(() => {
  fake?.stop();
  b?.cleanup();
});

const env = () => ({ OLLAMA_HOST: fake.url });
const systemOf = (body: Record<string, unknown>) => {
  const msgs = (body.messages as Array<{ role: string; content: string }>) ?? [];
  return msgs.filter((m) => m.role === "system").map((m) => m.content).join("\n");
};
const mainRequests = () => fake.chatRequests().filter((r) => !isExtraction(r));

describe("memory end to end (compiled binary, fake Ollama)", () => {
  test("a stated preference reaches the inbox after idle, is accepted, and is recalled in the same project only", async () => {
    extraction = [JSON.stringify({ LONGTERM: [{ text: "The user prefers tabs for indentation", subject: "indentation", scope: "project" }] })];
    const s1 = await runAt(b, projectA, ["--no-tui", "--model", MODEL], env(), "I always indent with tabs, never spaces.\nThanks, that is all.\n");
    expect(s1.code).toBe(0);
    const extractions = fake.chatRequests().filter(isExtraction);
    expect(extractions).toHaveLength(1);
    // What the extraction model saw: the conversation, not the system prompt of the session.
    expect(JSON.stringify(extractions[0]!.messages)).toContain("I always indent with tabs");

    const inbox = await runAt(b, projectA, ["memory", "inbox", "--json"], env());
    expect(inbox.code).toBe(0);
    const proposed = JSON.parse(inbox.stdout) as Array<{ id: string; text: string; status: string; scope: string; source: { kind: string; sessionId?: string; messages?: number[] } }>;
    expect(proposed).toHaveLength(1);
    expect(proposed[0]).toMatchObject({ text: "The user prefers tabs for indentation", status: "proposed", scope: "project", source: { kind: "session", messages: [0, 4] } });
    expect(proposed[0]!.source.sessionId).toBeTruthy();

    // Nothing proposed is recalled before it is accepted.
    const before = mainRequests().length;
    expect((await runAt(b, projectA, ["-p", "How should I indent this file?", "--model", MODEL], env())).code).toBe(0);
    expect(systemOf(mainRequests()[before]!)).not.toContain("prefers tabs");

    const accepted = await runAt(b, projectA, ["memory", "accept", proposed[0]!.id], env());
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain("The user prefers tabs for indentation");

    const n2 = mainRequests().length;
    expect((await runAt(b, projectA, ["-p", "How should I indent this file?", "--model", MODEL], env())).code).toBe(0);
    expect(systemOf(mainRequests()[n2]!)).toContain("The user prefers tabs for indentation");

    const n3 = mainRequests().length;
    expect((await runAt(b, projectB, ["-p", "How should I indent this file?", "--model", MODEL], env())).code).toBe(0);
    expect(systemOf(mainRequests()[n3]!)).not.toContain("prefers tabs");

    // The files the issue names, and the session moment behind the fact.
    const home = b.env.CHATCLI_HOME!;
    const projects = readdirSync(join(home, "projects"));
    const dirA = projects.find((p) => p.startsWith("alpha-"))!;
    const facts = JSON.parse(readFileSync(join(home, "projects", dirA, "memory", "facts.json"), "utf8")) as { facts: Array<{ text: string; confidence: number; uses: number }> };
    expect(facts.facts[0]).toMatchObject({ text: "The user prefers tabs for indentation", confidence: 0.6 });
    expect(facts.facts[0]!.uses).toBeGreaterThan(0);
    expect(readFileSync(join(home, "projects", dirA, "memory", "MEMORY.md"), "utf8")).toContain("- The user prefers tabs for indentation");
    const why = await runAt(b, projectA, ["memory", "why", proposed[0]!.id], env());
    expect(why.stdout).toContain("I always indent with tabs");
  }, 60_000);

  test("a user-scope fact is recalled in every project; /memory works in --no-tui; forget shows before it deletes; undo", async () => {
    const added = await runAt(b, projectA, ["memory", "add", "--scope", "user", "The user's name is Ada"], env());
    expect(added.code).toBe(0);
    const n = mainRequests().length;
    expect((await runAt(b, projectB, ["-p", "What is my name?", "--model", MODEL], env())).code).toBe(0);
    expect(systemOf(mainRequests()[n]!)).toContain("The user's name is Ada");

    const plain = await runAt(b, projectB, ["--no-tui", "--model", MODEL], env(), "/memory forget Ada\n");
    expect(plain.stdout).toContain("would be forgotten");
    expect((await runAt(b, projectB, ["memory", "search", "Ada"], env())).stdout).toContain("Ada");
    const dry = await runAt(b, projectB, ["memory", "forget", "Ada", "--dry-run"], env());
    expect(dry.stdout).toContain("The user's name is Ada");
    expect((await runAt(b, projectB, ["memory", "search", "Ada"], env())).stdout).toContain("Ada");
    // A script (no terminal) is not asked: the facts go, and the output lists what went.
    const gone = await runAt(b, projectB, ["memory", "forget", "Ada"], env());
    expect(gone.code).toBe(0);
    expect(gone.stdout).toContain("Forgot 1 fact(s)");
    expect(gone.stdout).toContain("The user's name is Ada");
    expect((await runAt(b, projectB, ["memory", "search", "Ada"], env())).code).toBe(1);
    expect((await runAt(b, projectB, ["memory", "undo"], env())).code).toBe(0);
    expect((await runAt(b, projectB, ["memory", "search", "Ada"], env())).stdout).toContain("Ada");
  }, 60_000);

  test("one-shot: a preference stated with -p is extracted before the process exits; a plain question costs no extraction", async () => {
    const proj = join(b.dir, "epsilon");
    mkdirSync(join(proj, ".git"), { recursive: true });
    extraction = [JSON.stringify({ PROFILE_UPDATE: [{ text: "The user prefers answers in Portuguese", subject: "language" }] })];
    const before = fake.chatRequests().filter(isExtraction).length;
    const r = await runAt(b, proj, ["-p", "I prefer answers in Portuguese. What is 2+2?", "--model", MODEL, "--output-format", "json"], env());
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).isError).toBe(false);
    expect(fake.chatRequests().filter(isExtraction).length).toBe(before + 1);
    const inbox = JSON.parse((await runAt(b, proj, ["memory", "inbox", "--json", "--scope", "user"], env())).stdout) as Array<{ text: string; category: string; scope: string }>;
    expect(inbox.map((f) => [f.text, f.category, f.scope])).toEqual([["The user prefers answers in Portuguese", "profile", "user"]]);
    expect((await runAt(b, proj, ["-p", "What is 2+2?", "--model", MODEL], env())).code).toBe(0);
    expect(fake.chatRequests().filter(isExtraction).length).toBe(before + 1);
  }, 60_000);

  test("with a fast model configured, extraction runs on it (and auto mode stores the fact at once)", async () => {
    const proj = join(b.dir, "zeta");
    mkdirSync(join(proj, ".git"), { recursive: true });
    extraction = [JSON.stringify({ LONGTERM: [{ text: "The project pins Node 22", scope: "project" }], DAILY: ["Upgraded the Node version"] })];
    const before = fake.chatRequests().filter(isExtraction).length;
    const r = await runAt(b, proj, ["--no-tui", "--model", MODEL], { ...env(), CHATCLI_FAST_MODEL: `OLLAMA:${FAST}`, CHATCLI_MEMORY_MODE: "auto" }, "We always pin Node 22 in this project.\nok\n");
    expect(r.code).toBe(0);
    const ext = fake.chatRequests().filter(isExtraction).slice(before);
    expect(ext.map((x) => x.model)).toEqual([FAST]);
    const list = JSON.parse((await runAt(b, proj, ["memory", "list", "--json", "--scope", "project"], env())).stdout) as Array<{ text: string; status: string }>;
    expect(list.map((f) => [f.text, f.status])).toEqual([["The project pins Node 22", "active"]]);
    const home = b.env.CHATCLI_HOME!;
    const dir = readdirSync(join(home, "projects")).find((p) => p.startsWith("zeta-"))!;
    const days = readdirSync(join(home, "projects", dir, "memory", "daily"));
    expect(days).toHaveLength(1);
    expect(days[0]).toMatch(/^\d{4}-\d{2}-\d{2}\.md$/);
    expect(readFileSync(join(home, "projects", dir, "memory", "daily", days[0]!), "utf8")).toContain("- Upgraded the Node version");
  }, 60_000);

  test("memory.mode off: nothing in the prompt, no extraction, no files", async () => {
    const off = join(b.dir, "gamma");
    mkdirSync(join(off, ".chatcli"), { recursive: true });
    mkdirSync(join(off, ".git"));
    writeFileSync(join(off, ".chatcli", "settings.json"), JSON.stringify({ memory: { mode: "off" } }));
    const before = fake.chatRequests().filter(isExtraction).length;
    const n = mainRequests().length;
    const r = await runAt(b, off, ["--no-tui", "--model", MODEL], env(), "What is my name?\nremember that I like green\nok\n");
    expect(r.code).toBe(0);
    expect(fake.chatRequests().filter(isExtraction).length).toBe(before);
    for (const req of mainRequests().slice(n)) expect(systemOf(req)).not.toContain("Ada");
    expect(existsSync(join(b.env.CHATCLI_HOME!, "projects", readdirSync(join(b.env.CHATCLI_HOME!, "projects")).find((p) => p.startsWith("gamma-")) ?? "none"))).toBe(false);
  }, 60_000);
});

describe.skipIf(!hasTmux())("/memory in the TUI (compiled binary in tmux)", () => {
  test("the picker shows the inbox with its source; picking an item and Accept stores it", async () => {
    const proj = join(b.dir, "delta");
    mkdirSync(join(proj, ".git"), { recursive: true });
    const exportFile = join(b.dir, "proposal.json");
    const fact = { id: "mzzimport1", text: "The user deploys on Fridays only", category: "longterm", scope: "project", confidence: 0.6, created: Date.now(), uses: 0, source: { kind: "session", sessionId: "s-x", messages: [0, 2] }, status: "proposed" };
    writeFileSync(exportFile, JSON.stringify({ version: 1, facts: [fact] }));
    expect((await runAt(b, proj, ["memory", "import", exportFile], env())).code).toBe(0);
    const t = new Tmux(join(b.dir, "mem.sock"), paneCommand(b, `--model ${MODEL}`, { env: env(), cwd: proj, after: "echo EXITED=$?; sleep 30" }), 110, 30);
    try {
      await t.waitFor((s) => s.includes(MODEL), 15_000);
      t.sendLiteral("/memory");
      await Bun.sleep(150);
      t.send("Escape"); // close the completion popup, keep the text
      await Bun.sleep(100);
      if (!t.capture().includes("/memory")) t.sendLiteral("/memory");
      t.send("Enter");
      const list = await t.waitFor((s) => s.includes("[inbox]") && s.includes("deploys on Fridays"), 10_000);
      expect(list).toMatch(/Memory: \d in the inbox/);
      expect(list.indexOf("deploys on Fridays")).toBeLessThan(list.indexOf("Undo the last memory change"));
      t.send("Enter");
      await t.waitFor((s) => s.includes("Accept (remember it)"), 10_000);
      t.send("Enter");
      await t.waitFor((s) => s.includes("Accepted 1 memory item"), 10_000);
      // /memory forget shows what would go and asks; "No" (the first choice) keeps it.
      t.sendLiteral("/memory forget Fridays");
      t.send("Enter");
      const ask = await t.waitFor((s) => s.includes("Forget these 1 fact(s)?"), 10_000);
      expect(ask).toContain("The user deploys on Fridays only");
      t.send("Enter");
      await t.waitFor((s) => s.includes("Nothing forgotten."), 10_000);
    } finally {
      t.kill();
    }
    const list2 = await runAt(b, proj, ["memory", "list", "--scope", "project", "--json"], env());
    expect((JSON.parse(list2.stdout) as unknown[]).length).toBe(1);
    const list = await runAt(b, proj, ["memory", "list", "--scope", "project", "--json"], env());
    expect((JSON.parse(list.stdout) as Array<{ text: string; status: string }>).map((f) => [f.text, f.status])).toEqual([["The user deploys on Fridays only", "active"]]);
  }, 60_000);

  test("a preference told in the TUI is extracted when the session ends (/exit)", async () => {
    const proj = join(b.dir, "eta");
    mkdirSync(join(proj, ".git"), { recursive: true });
    extraction = [JSON.stringify({ LONGTERM: [{ text: "The user prefers snake_case names", scope: "project" }] })];
    const before = fake.chatRequests().filter(isExtraction).length;
    const t = new Tmux(join(b.dir, "mem2.sock"), paneCommand(b, `--model ${MODEL}`, { env: env(), cwd: proj, after: "echo EXITED=$?; sleep 30" }), 110, 30);
    try {
      await t.waitFor((s) => s.includes(MODEL), 15_000);
      t.sendLiteral("I prefer snake_case names for variables.");
      t.send("Enter");
      await t.waitFor((s) => s.includes("Sure."), 15_000);
      t.sendLiteral("/exit");
      t.send("Enter");
      await t.waitFor((s) => s.includes("EXITED=0"), 20_000);
    } finally {
      t.kill();
    }
    expect(fake.chatRequests().filter(isExtraction).length).toBe(before + 1);
    const inbox = JSON.parse((await runAt(b, proj, ["memory", "inbox", "--json", "--scope", "project"], env())).stdout) as Array<{ text: string }>;
    expect(inbox.map((f) => f.text)).toEqual(["The user prefers snake_case names"]);
  }, 60_000);
});
