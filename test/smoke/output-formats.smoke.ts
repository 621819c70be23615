// The machine-readable outputs of the compiled binary (issue 15, items 1 and 12): stream-json grows with the
// answer, not its square (each delta carries only its own text; schema version 2), the session file keeps one
// copy per form, and every JSON the CLI prints names its fields in camelCase (the json result keeps its old
// snake_case names as deprecated aliases).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { agentEventSchema, EVENT_SCHEMA_VERSION } from "../../src/protocol/events.ts";
import { loadSession } from "../../src/store/session-file.ts";
import { HEADLESS_RESULT_ALIASES, headlessResultSchema } from "../../src/protocol/headless-result.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;
const model = { name: "coder:7b", contextLength: 16384, capabilities: ["completion", "tools"] };

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({ models: [model] });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

const env = () => ({ OLLAMA_HOST: fake.url });
const longAnswer = (lines: number) => Array.from({ length: lines }, (_, i) => `Line ${i}: some answer text that goes on.`).join("\n");

/** Every object key in a JSON value, at any depth. */
function keysOf(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) keysOf(x, out);
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) out.push(k), keysOf(x, out);
  return out;
}

describe("stream-json grows with the answer (compiled binary)", () => {
  test("a 1,000-line answer in 1,000 chunks: each delta holds only its text; the output is at most 3× the answer", async () => {
    const answer = longAnswer(1_000);
    fake.enqueue({ text: answer, chunkCount: 1_000 });
    const r = await run(b, ["-p", "write a lot", "--model", "coder:7b", "--output-format", "stream-json"], env());
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const l of lines) expect(agentEventSchema.safeParse(l).success).toBe(true);
    expect(lines[0]).toMatchObject({ type: "session.started", schemaVersion: EVENT_SCHEMA_VERSION });
    expect(EVENT_SCHEMA_VERSION).toBe(2);
    const deltas = lines.filter((l) => l.type === "message.delta");
    expect(deltas.length).toBeGreaterThan(0);
    for (const d of deltas) expect(Object.keys(d).sort()).toEqual(["messageId", "text", "type"]);
    expect(deltas.map((d) => d.text).join("")).toBe(answer);
    expect(lines.find((l) => l.type === "message.completed")).toMatchObject({ message: { role: "assistant", content: answer } });
    const answerBytes = Buffer.byteLength(answer);
    expect(Buffer.byteLength(r.stdout)).toBeLessThanOrEqual(3 * answerBytes);

    // The session file holds the answer a fixed number of times (history message, one coalesced delta for the
    // redraw, the completion), not once per delta.
    const sessionId = String(lines[0]!.sessionId);
    const file = join(b.env.CHATCLI_HOME!, "sessions", `${sessionId}.jsonl`);
    expect(statSync(file).size).toBeLessThanOrEqual(4 * answerBytes);
    const recorded = readFileSync(file, "utf8").split("\n").filter((l) => l.includes('"message.delta"'));
    expect(recorded.length).toBe(1);
    expect(JSON.parse(recorded[0]!).event).toEqual({ type: "message.delta", messageId: deltas[0]!.messageId, text: answer });

    // And it loads back for a resume: the replayed answer is the whole text.
    const replayed = loadSession(file).viewEvents.filter((e) => e.type === "message.delta");
    expect(replayed).toEqual([{ type: "message.delta", messageId: String(deltas[0]!.messageId), text: answer }]);
  });
});

describe("JSON naming (compiled binary)", () => {
  test("--output-format json: camelCase fields, and the snake_case names as aliases with the same values", async () => {
    fake.enqueue({ text: "Done." });
    const r = await run(b, ["-p", "hi", "--model", "coder:7b", "--output-format", "json"], env());
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    const parsed = headlessResultSchema.strict().safeParse(Object.fromEntries(Object.entries(out).filter(([k]) => !(k in HEADLESS_RESULT_ALIASES))));
    expect(parsed.success).toBe(true);
    expect(out).toMatchObject({ type: "result", subtype: "success", isError: false, result: "Done.", stopReason: "stop", numTurns: 1 });
    expect(typeof out.durationMs).toBe("number");
    expect(String(out.sessionId)).not.toBe("");
    for (const [old, now] of Object.entries(HEADLESS_RESULT_ALIASES)) expect({ old, value: out[old] }).toEqual({ old, value: out[now] });
    expect(Object.keys(out).slice(-5)).toEqual(Object.keys(HEADLESS_RESULT_ALIASES));
    // Outside the deprecated aliases no name has an underscore, at any depth (usage included).
    expect(keysOf(out).filter((k) => k.includes("_") && !(k in HEADLESS_RESULT_ALIASES))).toEqual([]);
  });

  test("a failed run: isError and error, is_error still there", async () => {
    fake.enqueue({ status: 500, errorBody: "boom" });
    const r = await run(b, ["-p", "hi", "--model", "coder:7b", "--output-format", "json"], { ...env(), MAX_RETRIES: "0" });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ subtype: "error", isError: true, is_error: true, stopReason: "error", stop_reason: "error" });
    expect(typeof out.error).toBe("string");
  });

  test("models --json and providers --json name every field in camelCase", async () => {
    for (const args of [["models", "--json"], ["providers", "--json"]]) {
      const r = await run(b, args, env());
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout) as unknown[];
      expect(out.length).toBeGreaterThan(0);
      const keys = keysOf(out);
      expect(keys.length).toBeGreaterThan(0);
      expect({ args, bad: keys.filter((k) => !/^[a-z][a-zA-Z0-9]*$/.test(k)) }).toEqual({ args, bad: [] });
    }
  });
});
