// The extraction reply parser (scripted replies, well-formed and malformed) and the transcript it is given.
import { describe, expect, test } from "bun:test";
import { parseExtractionReply, transcriptOf, buildExtractionRequest, EXTRACTION_SYSTEM_PROMPT } from "../../src/memory/extraction.ts";
import { createRedactor } from "../../src/store/redact.ts";

const ctx = { redact: createRedactor({ MY_API_KEY: "zz-very-secret-42" }, []), source: { kind: "session" as const, sessionId: "s", messages: [0, 4] as [number, number] }, defaultScope: "project" as const };

describe("parseExtractionReply", () => {
  test("the five categories as JSON, strings or objects", () => {
    const r = parseExtractionReply(
      JSON.stringify({
        DAILY: ["Fixed the flaky parser test"],
        LONGTERM: [{ text: "The project uses bun test", subject: "test runner" }, { text: "The user wants short answers", scope: "user", correction: true }],
        PROFILE_UPDATE: [{ text: "The user prefers Vim", subject: "editor" }],
        TOPICS: ["parsers"],
        PROJECTS: [{ name: "chatcli", note: "terminal agent" }],
      }),
      ctx,
    );
    expect(r.kind).toBe("items");
    if (r.kind !== "items") return;
    expect(r.candidates.map((c) => [c.category, c.scope, c.text, c.confidence])).toEqual([
      ["daily", "project", "Fixed the flaky parser test", 0.6],
      ["longterm", "project", "The project uses bun test", 0.6],
      ["longterm", "user", "The user wants short answers", 1],
      ["profile", "user", "The user prefers Vim", 0.6],
      ["topic", "project", "parsers", 0.6],
      ["project", "project", "chatcli: terminal agent", 0.6],
    ]);
    expect(r.candidates[3]!.subject).toBe("editor");
    expect(r.candidates[0]!.source).toEqual(ctx.source);
  });

  test("a profile written as fields, and other key spellings", () => {
    const r = parseExtractionReply(JSON.stringify({ profile_update: { editor: "neovim", name: "Ada" }, memories: ["The CI runs on Buildkite"] }), ctx);
    expect(r.kind === "items" && r.candidates.map((c) => [c.category, c.text, c.subject])).toEqual([
      ["profile", "editor: neovim", "editor"],
      ["profile", "name: Ada", "name"],
      ["longterm", "The CI runs on Buildkite", undefined],
    ]);
  });

  test("NOTHING_NEW, also wrapped or after a think block", () => {
    for (const raw of ["NOTHING_NEW", "  `NOTHING_NEW`.", "<think>hmm</think>\nNOTHING_NEW", "**NOTHING_NEW**"]) expect(parseExtractionReply(raw, ctx).kind).toBe("nothing");
  });

  test("JSON in a code fence with lower-case keys, and the line format", () => {
    const fenced = parseExtractionReply('Here you go:\n```json\n{"longterm": ["The user likes Rust"]}\n```', ctx);
    expect(fenced.kind === "items" && fenced.candidates[0]!.text).toBe("The user likes Rust");
    const lines = parseExtractionReply("- LONGTERM: The project targets Node 20\n- TOPICS: sandboxing", ctx);
    expect(lines.kind === "items" && lines.candidates.map((c) => c.category)).toEqual(["longterm", "topic"]);
  });

  test("malformed replies say so", () => {
    for (const raw of ["", "Sure, I will remember that!", '{"unrelated": ["x"]}', "{not json"]) expect(parseExtractionReply(raw, ctx).kind).toBe("malformed");
  });

  test("an item holding a secret is dropped; empty and huge items are skipped", () => {
    const r = parseExtractionReply(JSON.stringify({ LONGTERM: ["The key is zz-very-secret-42", "Deploys use sk-ant-abcdefghijklmnopqrstuvwxyz", "", "x".repeat(600), "The user prefers tabs"] }), ctx);
    expect(r.kind === "items" && r.candidates.map((c) => c.text)).toEqual(["The user prefers tabs"]);
  });
});

describe("the request", () => {
  test("the transcript is redacted, tool output summarized, and the prompt is ours", () => {
    const text = transcriptOf(
      [
        { role: "user", content: "my key is zz-very-secret-42, I prefer tabs" },
        { role: "assistant", content: "Noted." },
        { role: "tool", toolCallId: "c1", name: "read", content: "a".repeat(5000) },
      ],
      ctx.redact,
    );
    expect(text).not.toContain("zz-very-secret-42");
    expect(text).toContain("[tool read returned 5000 characters]");
    const req = buildExtractionRequest(text, "qwen3:0.6b");
    expect(req.purpose).toBe("memory");
    expect(req.tools).toBeUndefined();
    expect(req.system![0]!.text).toContain("NOTHING_NEW");
    expect(req.system![0]!.text.startsWith(EXTRACTION_SYSTEM_PROMPT)).toBe(true);
  });
});
