/**
 * Issue 15 item 5 through the compiled binary: on a 4,096-token window every compaction prints one plain line
 * (token counts as the status line writes them), the details go to stream-json's `compaction` event, and every
 * request the model gets fits the window.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";
import { startFakeOllama, type FakeOllama, type FakeReply } from "../support/fake-ollama.ts";

const WINDOW = 4_096;
const FILES = 6;
let b: BinaryEnv;
let fake: FakeOllama;

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({
    models: [{ name: "qwen3:8b", contextLength: WINDOW, capabilities: ["completion", "tools"] }],
    defaultReply: { text: "default" },
    summaryReply: { text: "## Files Read\n- f0.txt - notes\n\n## Current Task State\n- Done: reading files" },
  });
  for (let i = 0; i < FILES; i++) {
    writeFileSync(join(b.dir, `f${i}.txt`), `${Array.from({ length: 450 }, (_, k) => `note${i}-${k % 50}`).join(" ")}\n`);
  }
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

function script(): FakeReply[] {
  const reads: FakeReply[] = Array.from({ length: FILES }, (_, i) => ({ toolCalls: [{ name: "read", arguments: { path: `f${i}.txt` } }] }));
  return [...reads, { text: "All six files read." }];
}

const NOISE = /Compacting history|Summarizing|Summarization|Emergency|level \d|falling back|\d\.\dK\b|target/;

describe("compaction on a 4k window (binary)", () => {
  test("one plain line per compaction on stderr; stream-json carries the details; every request fits", async () => {
    fake.enqueue(...script());
    const before = fake.chatRequests().length;
    const text = await run(b, ["-p", "read f0.txt to f5.txt one by one", "--model", "qwen3:8b"], { OLLAMA_HOST: fake.url, MAX_RETRIES: "0" });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("All six files read.");
    const lines = text.stderr.split("\n").filter((l) => /compact/i.test(l));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    for (const l of lines) expect(l).toMatch(/^Context compacted \(\d+(\.\d)?k → \d+(\.\d)?k tokens\): .+\.$/);
    expect(text.stderr).not.toMatch(NOISE);

    // The details (levels, targets) are in the log.
    const logs = join(b.home, ".chatcli", "logs");
    const log = readdirSync(logs).map((f) => readFileSync(join(logs, f), "utf8")).join("\n");
    expect(log.match(/compaction: \d+ → \d+ messages/g)?.length).toBe(lines.length);
    expect(log).toContain("target");

    // Every request the model was sent (main turns and summaries) fits the window it was sent with.
    const reqs = fake.chatRequests().slice(before) as Array<{ messages: Array<{ content: string }>; options?: { num_ctx?: number } }>;
    for (const r of reqs) {
      expect(r.options?.num_ctx).toBe(WINDOW);
      expect(JSON.stringify(r.messages).length / 4).toBeLessThan(WINDOW);
    }

    fake.enqueue(...script());
    const json = await run(b, ["-p", "read f0.txt to f5.txt one by one", "--model", "qwen3:8b", "--output-format", "stream-json"], { OLLAMA_HOST: fake.url, MAX_RETRIES: "0" });
    expect(json.code).toBe(0);
    const events = json.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    const compactions = events.filter((e) => e.type === "compaction");
    // The same run, the same compactions: one event for each line the text run printed.
    expect(compactions.length).toBe(lines.length);
    for (const c of compactions) {
      expect(c.trigger).toBe("auto");
      expect(typeof c.summary).toBe("string");
      expect((c.tokensAfter as number) < (c.tokensBefore as number)).toBe(true);
    }
  });
});
