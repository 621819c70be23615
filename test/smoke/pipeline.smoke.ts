// Issues 4 and 5 through the compiled binary: the session workspace (CHATCLI_AGENT_TMPDIR exported to exec,
// removed at every exit unless CHATCLI_AGENT_KEEP_TMPDIR=true, one per process), the microcompact line on the
// TUI screen, "always" approvals persisted and honoured by the next run, and headless output that survives a
// slow pipe reader.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";
import { withoutAnchor } from "../support/anchor-text.ts";

let b: BinaryEnv;
let fake: FakeOllama;
let tmp: string;
const model = { name: "coder:7b", contextLength: 32768, capabilities: ["completion", "tools"] };

beforeAll(() => {
  b = isolatedBinary();
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  fake = startFakeOllama({ models: [model] });
  tmp = join(b.home, "tmp");
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

const freshTmp = (): void => {
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
};
const env = (extra: Record<string, string> = {}) => ({ OLLAMA_HOST: fake.url, TMPDIR: tmp, ...extra });
const workspaces = () => readdirSync(tmp).filter((n) => n.startsWith("chatcli-agent-"));
const echoTmp = () => fake.enqueue({ toolCalls: [{ name: "exec", arguments: { command: "echo AGENT_TMP=$CHATCLI_AGENT_TMPDIR" } }], chunks: [] }, { text: "done" });

describe("session workspace (compiled binary)", () => {
  test("-p: CHATCLI_AGENT_TMPDIR reaches exec children, and the workspace is gone at exit", async () => {
    freshTmp();
    echoTmp();
    const r = await run(b, ["-p", "show it", "--model", "coder:7b", "--permission-mode", "bypass", "--output-format", "stream-json"], env());
    expect(r.code).toBe(0);
    const done = r.stdout.trim().split("\n").map((l) => JSON.parse(l)).find((e) => e.type === "tool.completed");
    expect(done.result).toMatch(new RegExp(`AGENT_TMP=${tmp}/chatcli-agent-[^/\\s]+/scratch`));
    expect(workspaces()).toEqual([]);
  });

  test("-p with CHATCLI_AGENT_KEEP_TMPDIR=true keeps it; parallel processes get their own", async () => {
    freshTmp();
    echoTmp();
    echoTmp();
    const args = ["-p", "show it", "--model", "coder:7b", "--permission-mode", "bypass", "--output-format", "json"];
    const [r1, r2] = await Promise.all([run(b, args, env({ CHATCLI_AGENT_KEEP_TMPDIR: "true" })), run(b, args, env({ CHATCLI_AGENT_KEEP_TMPDIR: "true" }))]);
    expect([r1.code, r2.code]).toEqual([0, 0]);
    const kept = workspaces();
    expect(kept).toHaveLength(2);
    for (const w of kept) expect(readdirSync(join(tmp, w)).sort()).toEqual(["scratch", "tool-results"]);
  });

  test("text protocol: a huge result is budgeted (saved file, stable preview) and stdout never shows the tool-call markup", async () => {
    freshTmp();
    const plainFake = startFakeOllama({ models: [{ name: "plain:1b", contextLength: 32768, capabilities: ["completion"] }] });
    try {
      writeFileSync(join(b.dir, "huge.txt"), Array.from({ length: 400 }, (_, i) => `row ${i} ${"y".repeat(90)}`).join("\n"));
      writeFileSync(join(b.dir, "a.txt"), "a\n");
      plainFake.enqueue(
        { text: `Reading it.\n<tool_call name="read" args='{"path":"huge.txt"}' />` },
        { text: `<tool_call name="read" args='{"path":"a.txt"}' />` },
        { text: "Both read." },
      );
      const r = await run(b, ["-p", "read", "--model", "plain:1b"], { ...env({ CHATCLI_AGENT_KEEP_TMPDIR: "true" }), OLLAMA_HOST: plainFake.url });
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain("tool_call");
      expect(r.stdout).toContain("Reading it.");
      expect(r.stdout).toContain("Both read.");
      const previews = plainFake.chatRequests().slice(1).map((req) => {
        const feedback = (req.messages as Array<{ role: string; content: string }>).find((m) => m.role === "user" && m.content.includes("omitted"))!;
        return withoutAnchor(feedback.content);
      });
      expect(previews).toHaveLength(2);
      expect(previews[1]).toBe(previews[0]!); // same file, same preview on the later turn
      const saved = previews[0]!.match(/full output saved to (\S+)\]/)![1]!;
      expect(saved).toMatch(/\/\.chatcli\/sessions\/[^/]+\/tool-results\/budget_[^/]+\.txt$/); // kept with the session
      expect(readFileSync(saved, "utf8")).toContain("row 399");
    } finally {
      plainFake.stop();
    }
  });

  test("a slow reader of a piped stream-json run still gets every line (no truncation at exit)", async () => {
    freshTmp();
    fake.enqueue({ toolCalls: [{ name: "exec", arguments: { command: "seq 1 150000" } }], chunks: [] }, { text: "counted" });
    const out = join(b.home, "slow-reader.jsonl");
    const cmd = `'${b.bin}' -p count --model coder:7b --permission-mode bypass --output-format stream-json | (sleep 1; cat > '${out}')`;
    const p = Bun.spawn(["sh", "-c", cmd], { cwd: b.dir, env: { ...b.env, ...env() }, stdout: "ignore", stderr: "ignore" });
    expect(await p.exited).toBe(0);
    const lines = readFileSync(out, "utf8").trim().split("\n");
    const events = lines.map((l) => JSON.parse(l) as { type: string; stopReason?: string });
    expect(events.at(-1)).toMatchObject({ type: "turn.completed", stopReason: "stop" });
  }, 20_000);
});

describe.skipIf(!hasTmux())("TUI (compiled binary in tmux)", () => {
  test("the microcompact line is on screen; /exit removes the workspace", async () => {
    freshTmp();
    writeFileSync(join(b.dir, "big.txt"), Array.from({ length: 200 }, (_, i) => `line ${i} ${"x".repeat(60)}`).join("\n"));
    for (const n of ["a", "b", "c", "d"]) writeFileSync(join(b.dir, `${n}.txt`), `${n}\n`);
    fake.enqueue({ toolCalls: [{ name: "read", arguments: { path: "big.txt" } }], chunks: [] });
    for (const n of ["a", "b", "c", "d"]) fake.enqueue({ toolCalls: [{ name: "read", arguments: { path: `${n}.txt` } }], chunks: [] });
    fake.enqueue({ text: "all read" });
    const tmux = new Tmux(join(b.home, "tmux-pipeline-1.sock"), paneCommand(b, "--model coder:7b", { env: env(), after: "echo EXITED=$?; sleep 30" }), 110, 40);
    try {
      await tmux.waitFor((s) => s.includes("Ask anything"));
      expect(workspaces()).toHaveLength(1);
      tmux.sendLiteral("read them");
      tmux.send("Enter");
      const screen = await tmux.waitFor((s) => s.includes("all read"));
      expect(screen).toMatch(/microcompact: 1 truncated, 0 summarized, \d+K freed/);
      tmux.sendLiteral("/exit");
      tmux.send("Enter");
      await tmux.waitFor((s) => s.includes("EXITED=0"));
      expect(workspaces()).toEqual([]);
    } finally {
      tmux.kill();
    }
  }, 20_000);

  // Sandbox off: with it, `touch` inside the project needs no approval at all.
  test("an 'always' approval is written to ./.chatcli/coder_policy.json and honoured next run; Ctrl+C Ctrl+C removes the workspace (sandbox off)", async () => {
    freshTmp();
    const policy = join(b.dir, ".chatcli", "coder_policy.json");
    rmSync(policy, { force: true });
    const touch = () => fake.enqueue({ toolCalls: [{ name: "exec", arguments: { command: "touch approved.txt" } }], chunks: [] }, { text: "touched" });
    const start = (sock: string) => new Tmux(join(b.home, sock), paneCommand(b, "--model coder:7b --sandbox off", { env: env(), after: "echo EXITED=$?; sleep 30" }));
    touch();
    let tmux = start("tmux-pipeline-2.sock");
    try {
      await tmux.waitFor((s) => s.includes("Ask anything"));
      tmux.sendLiteral("touch it");
      tmux.send("Enter");
      await tmux.waitFor((s) => s.includes("[a] always"));
      await Bun.sleep(400); // keys within APPROVAL_GUARD_MS of the dialog appearing are ignored on purpose
      tmux.send("a");
      await tmux.waitFor((s) => s.includes("touched"));
      expect(existsSync(join(b.dir, "approved.txt"))).toBe(true);
      const rules = JSON.parse(readFileSync(policy, "utf8")) as { rules: Array<{ pattern: string; action: string }> };
      expect(rules.rules).toContainEqual({ pattern: "exec touch approved.txt", action: "allow" });
      tmux.send("C-c");
      await Bun.sleep(200);
      tmux.send("C-c");
      await tmux.waitFor((s) => s.includes("EXITED="));
      expect(workspaces()).toEqual([]);
    } finally {
      tmux.kill();
    }
    rmSync(join(b.dir, "approved.txt"));
    touch();
    tmux = start("tmux-pipeline-3.sock");
    try {
      await tmux.waitFor((s) => s.includes("Ask anything"));
      tmux.sendLiteral("touch it again");
      tmux.send("Enter");
      const screen = await tmux.waitFor((s) => s.includes("touched"));
      expect(screen).not.toContain("Permission required");
      expect(existsSync(join(b.dir, "approved.txt"))).toBe(true);
    } finally {
      tmux.kill();
    }
  }, 30_000);
});
