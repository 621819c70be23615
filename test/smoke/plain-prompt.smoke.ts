// `--no-tui` at a terminal (issue 15 item 11), compiled binary in a real tmux pane: a `> ` marker whenever it waits
// for a prompt, and an approval question that says what to type with its own marker; piped input gets no markers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({ models: [{ name: "coder:7b", contextLength: 32768, capabilities: ["completion", "tools"] }], defaultReply: { text: "Plain answer." } });
});
afterAll(() => {
  fake?.stop();
  b?.cleanup();
});

const rows = (screen: string) => screen.split("\n").map((l) => l.trimEnd()).filter((l) => l);

describe.skipIf(!hasTmux())("--no-tui at a terminal (compiled binary in tmux)", () => {
  test("a `> ` marker when it waits for a prompt; the approval says what to type", async () => {
    const t = new Tmux(join(b.dir, "plain.sock"), paneCommand(b, "--no-tui --model coder:7b", { env: { OLLAMA_HOST: fake.url }, after: "echo EXITED=$?; sleep 30" }), 100, 30);
    try {
      await t.waitFor((s) => rows(s).at(-1) === ">");
      fake.enqueue({ text: "First answer." });
      t.sendLiteral("hello");
      t.send("Enter");
      await t.waitFor((s) => s.includes("First answer."));
      expect(rows(await t.waitFor((s) => rows(s).at(-1) === ">"))).toEqual(["> hello", "First answer.", ">"]);

      fake.enqueue({ toolCalls: [{ name: "write", arguments: { path: "new.txt", content: "hi" } }], chunks: [] }, { text: "Written." });
      t.sendLiteral("create new.txt");
      t.send("Enter");
      const asked = rows(await t.waitFor((s) => rows(s).at(-1) === "allow [y/a/n/N]>"));
      expect(asked).toContain("  type y (allow once), a (always), n (deny) or N (never), then Enter; anything else denies");
      t.send("y", "Enter");
      await t.waitFor((s) => s.includes("Written.") && rows(s).at(-1) === ">");
      expect(readFileSync(join(b.dir, "new.txt"), "utf8")).toBe("hi");
      t.send("C-d");
      await t.waitFor((s) => s.includes("EXITED=0"));
      expect(rows(t.capture()).at(-1)).toBe("EXITED=0"); // the shell goes on under the last marker, not after it
    } finally {
      t.kill();
    }
  }, 30_000);

  test("piped input: /help lists every command (extensions, MCP, memory); /mcp without servers says how to add one", async () => {
    const r = await run(b, ["--no-tui", "--model", "coder:7b"], { OLLAMA_HOST: fake.url }, "/help\n/mcp\n");
    expect(r.code).toBe(0);
    for (const name of ["/diff", "/undo", "/plugins", "/hooks", "/mcp", "/memory"]) expect(r.stdout).toContain(name);
    expect(r.stdout).toContain("No MCP server is configured. Add one with `chatcli mcp add`");
    expect(r.stdout).not.toContain("Unknown command");
  });

  test("piped input: the answers only, no markers", async () => {
    fake.enqueue({ text: "Piped answer." });
    const r = await run(b, ["--no-tui", "--model", "coder:7b"], { OLLAMA_HOST: fake.url }, "hello\n");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Piped answer.\n");
  });
});
