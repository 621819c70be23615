// Issue 14, through the compiled binary: a scripted model emits each read-only-check attack as an exec tool call,
// headless, in `--permission-mode default` and in `bypass`. Canary files prove nothing ran that should not have:
// in default mode none of the tricks is auto-allowed (a headless ask is denied), a vetted `git status` runs but
// neither it nor chatcli's own git calls run the repository's fsmonitor; in bypass the lines the dangerous check
// cannot clear still ask.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, runAt, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;
const TOOLS = "coder:7b";

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({ models: [{ name: TOOLS, contextLength: 16384, capabilities: ["completion", "tools"] }], defaultReply: { text: "Done." } });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

let n = 0;
/** A real git repository whose config names an fsmonitor program that drops a canary. */
function repo(): string {
  const d = join(b.dir, `attack-${++n}`);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, "f"), "foo one\nfoo two\n");
  const git = (args: string[]) => spawnSync("git", args, { cwd: d, env: { PATH: process.env.PATH, HOME: b.home, GIT_CONFIG_NOSYSTEM: "1" } });
  git(["init", "-q"]);
  git(["add", "f"]);
  git(["-c", "user.email=a@b", "-c", "user.name=n", "commit", "-qm", "x"]);
  git(["config", "core.fsmonitor", `touch '${join(d, "canary-fsmonitor")}'; false`]);
  writeFileSync(join(d, "f"), "foo changed\n");
  return d;
}

const canaries = (d: string) => readdirSync(d).filter((f) => f.startsWith("canary-")).sort();
const exec = (command: string) => ({ name: "exec", arguments: { command } });

const DEFAULT_ATTACKS = [
  "echo hi \r# ; touch canary-cr",
  "find . {-exec,touch,canary-brace,\\;}",
  "find . -ex${U}ec touch canary-empty \\;",
  "sort -o${IFS}canary-ifs f",
  "sed -n 1p f {-e,'e touch canary-sed'}",
  "test -v 'a[$(touch canary-test)]'",
  "printf -v 'a[$(touch canary-printf)]' x",
  "sort --outp=canary-sort f",
  "git grep -O'touch canary-grep' foo",
  "git log --output=canary-gitlog",
  "git {-c,core.fsmonitor=touch\\ canary-gitc} status",
  "uniq f canary-uniq",
  "cat f | sort --outp=canary-pipe",
];

describe("the compiled binary does not run read-only-check attacks", () => {
  // Sandbox off: this is the read-only check alone. With the sandbox (the default) these lines run contained, and
  // their canaries land inside the project by design (test/smoke/sandbox.smoke.ts covers what they cannot reach).
  test("default mode: every trick is refused, a vetted git status runs hardened (sandbox off)", async () => {
    const d = repo();
    const from = fake.chatRequests().length;
    fake.enqueue({ toolCalls: [...DEFAULT_ATTACKS.map(exec), exec("git status --short")], chunks: [] }, { text: "Ok." });
    const r = await runAt(b, d, ["-p", "look", "--model", TOOLS, "--permission-mode", "default", "--sandbox", "off"], { OLLAMA_HOST: fake.url });
    expect(r.code).toBe(0);
    expect(canaries(d)).toEqual([]);
    const last = fake.chatRequests().slice(from).at(-1) as { messages?: Array<{ role: string; content: string }> };
    const tools = (last.messages ?? []).filter((m) => m.role === "tool");
    expect(tools).toHaveLength(DEFAULT_ATTACKS.length + 1);
    for (const t of tools.slice(0, -1)) expect(t.content.toLowerCase()).toMatch(/denied|permission|not approved/);
    expect(tools.at(-1)!.content).toContain(" M f");
  });

  test("bypass mode: lines the dangerous check cannot clear still ask (and headless, are not run)", async () => {
    const d = repo();
    const attacks = ["find . -ex${U}ec touch canary-b-empty \\;", "sort -o${IFS}canary-b-ifs f", "echo canary-b-xargs | xargs tee", "for ((i=0;i<1;i++)); do tee canary-b-unparsed < f; done"];
    fake.enqueue({ toolCalls: [...attacks.map(exec), exec("touch bypass-ran")], chunks: [] }, { text: "Ok." });
    const r = await runAt(b, d, ["-p", "go", "--model", TOOLS, "--permission-mode", "bypass"], { OLLAMA_HOST: fake.url });
    expect(r.code).toBe(0);
    expect(existsSync(join(d, "bypass-ran"))).toBe(true);
    expect(canaries(d)).toEqual([]);
  });
});
