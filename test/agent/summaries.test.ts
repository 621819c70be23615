// Tool-use summaries, unit level: cleaning, fixed labels, the request, the gate, the summarizer's lifecycle.
import { describe, expect, test } from "bun:test";
import "../../src/llm/providers/index.ts";
import {
  SUMMARY_FIELD_CHARS,
  SUMMARY_MAX_CHARS,
  ToolUseSummarizer,
  buildSummaryRequest,
  cleanSummary,
  fastModelSpec,
  parseFastModel,
  summariesEnabled,
  summarizerFromConfig,
  trivialLabel,
  type BatchCall,
} from "../../src/agent/summaries.ts";
import type { LlmProvider } from "../../src/llm/provider.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import type { LlmEvent, LlmRequest } from "../../src/protocol/llm.ts";

describe("cleanSummary", () => {
  const cases: Array<[string, string, string]> = [
    ["plain", "Read config and fixed port", "Read config and fixed port"],
    ["surrounding whitespace", "  \n Read config \n", "Read config"],
    ["first line only", "Fixed the port check\nBecause the config said so", "Fixed the port check"],
    ["CRLF first line", "Ran tests\r\nsecond", "Ran tests"],
    ["dash list prefix", "- Read main.ts", "Read main.ts"],
    ["star list prefix", "* Read main.ts", "Read main.ts"],
    ["bullet list prefix", "• Read main.ts", "Read main.ts"],
    ["bullet without space", "•Read main.ts", "Read main.ts"],
    ["double quotes", '"Read main.ts"', "Read main.ts"],
    ["single quotes", "'Read main.ts'", "Read main.ts"],
    ["backticks", "`Read main.ts`", "Read main.ts"],
    ["triple backticks", "```Read main.ts```", "Read main.ts"],
    ["smart quotes", "“Read main.ts”", "Read main.ts"],
    ["ten wrapping quotes", `${'"'.repeat(10)}Read${'"'.repeat(10)}`, "Read"],
    ["more than ten: only ten stripped", `${'"'.repeat(12)}Read${'"'.repeat(12)}`, '""Read""'],
    ["inner quotes kept", 'Searched for "foo"', 'Searched for "foo"'],
    ["quoted with inner quotes", '"Searched for "foo""', 'Searched for "foo"'],
    ["Label: prefix", "Label: Read main.ts", "Read main.ts"],
    ["Summary: prefix", "Summary: Read main.ts", "Read main.ts"],
    ["Result: prefix", "Result: Read main.ts", "Read main.ts"],
    ["Output: prefix", "Output: Read main.ts", "Read main.ts"],
    ["prefix is case-insensitive", "LABEL:Read main.ts", "Read main.ts"],
    ["list + quotes + prefix", '- "Label: Read main.ts"', "Read main.ts"],
    ["prefix then quotes", 'Label: "Read main.ts"', "Read main.ts"],
    ["a word that only starts like a prefix", "Outputted the report", "Outputted the report"],
    ["API error rejected", "API error: 500 Internal", ""],
    ["Error: rejected", "Error: rate limited", ""],
    ["error: lower case rejected", "error: timeout", ""],
    ["I cannot rejected", "I cannot summarize this", ""],
    ["I can't rejected", "I can't do that", ""],
    ["I can’t (typographic) rejected", "I can’t do that", ""],
    ["Unable to rejected", "Unable to determine", ""],
    ["error shape behind a list marker", "- Error: nope", ""],
    ["error shape behind a prefix", "Summary: I cannot tell", ""],
    ["Errored is not an error shape", "Errored builds triaged", "Errored builds triaged"],
    ["empty", "", ""],
    ["whitespace only", " \n\t \n", ""],
    ["only quotes", '""', ""],
    ["only a list marker", "- ", ""],
    ["CJK", "読み込んだ設定ファイル", "読み込んだ設定ファイル"],
    ["CJK with prefix and quotes", "Label: 「修复了端口检查」", "「修复了端口检查」"],
    ["CJK in quotes", '"修复了端口检查"', "修复了端口检查"],
  ];
  for (const [name, input, want] of cases) {
    test(name, () => expect(cleanSummary(input)).toBe(want));
  }

  test("hard cap of 100 characters", () => {
    const out = cleanSummary("x".repeat(250));
    expect(out).toBe("x".repeat(SUMMARY_MAX_CHARS));
  });

  test("the cap counts characters and never splits one (CJK, emoji)", () => {
    const cjk = cleanSummary("设".repeat(150));
    expect(Array.from(cjk)).toHaveLength(100);
    const emoji = cleanSummary("😀".repeat(120));
    expect(Array.from(emoji)).toHaveLength(100);
    expect(emoji).toBe("😀".repeat(100));
    expect(emoji).not.toContain("\uFFFD");
  });
});

const call = (name: string, args: Record<string, unknown> | undefined, result = "ok", id = `id_${name}`): BatchCall => ({ id, name, args, result, isError: false });

describe("trivialLabel", () => {
  test("one read of one file", () => {
    expect(trivialLabel([call("read", { path: "src/main.ts" })])).toBe("Read src/main.ts");
    expect(trivialLabel([call("read", { file_path: "README.md" })])).toBe("Read README.md");
  });
  test("one tree, glob or search", () => {
    expect(trivialLabel([call("tree", { path: "src" })])).toBe("Listed src/");
    expect(trivialLabel([call("tree", {})])).toBe("Listed the project tree");
    expect(trivialLabel([call("glob", { pattern: "**/*.ts" })])).toBe("Listed files matching **/*.ts");
    expect(trivialLabel([call("search", { pattern: "foo" })])).toBe('Searched for "foo"');
    expect(trivialLabel([call("search", { pattern: "foo", path: "src" })])).toBe('Searched for "foo" in src');
  });
  test("not trivial: several calls, other tools, missing arguments", () => {
    expect(trivialLabel([call("read", { path: "a" }), call("read", { path: "b" })])).toBeUndefined();
    expect(trivialLabel([call("exec", { command: "ls" })])).toBeUndefined();
    expect(trivialLabel([call("edit", { path: "a" })])).toBeUndefined();
    expect(trivialLabel([call("read", undefined)])).toBeUndefined();
    expect(trivialLabel([call("search", {})])).toBeUndefined();
    expect(trivialLabel([])).toBeUndefined();
  });
  test("a very long path is capped", () => {
    const label = trivialLabel([call("read", { path: `${"d/".repeat(80)}f.ts` })])!;
    expect(Array.from(label).length).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
  });
});

describe("buildSummaryRequest", () => {
  test("intent and every field are cut to 300 characters; no tools, small max tokens, low temperature", () => {
    const long = "y".repeat(1000);
    const req = buildSummaryRequest(`I will look at the config. ${long}`, [call("exec", { command: long }, long), call("edit", { path: "src/x.ts" }, "patched")], "qwen3:0.6b");
    expect(req.model).toBe("qwen3:0.6b");
    expect(req.purpose).toBe("tool_use_summary");
    expect(req.tools).toBeUndefined();
    expect(req.maxOutputTokens).toBeLessThanOrEqual(64);
    expect(req.temperature).toBe(0.2);
    expect(req.system[0]!.text).toContain("past-tense");
    expect(req.system[0]!.text).toContain("30 characters");
    const body = req.messages[0]!.content;
    expect(body).toContain("I will look at the config.");
    expect(body).toContain("exec");
    expect(body).toContain("src/x.ts");
    expect(body).toContain("patched");
    // No run of y's longer than one cut field.
    const runs = body.match(/y+/g) ?? [];
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const r of runs) expect(r.length).toBeLessThanOrEqual(SUMMARY_FIELD_CHARS);
  });
  test("qwen3 fast models get the no-think switch; others do not", () => {
    expect(buildSummaryRequest("x", [], "qwen3:0.6b").system[0]!.text).toContain("/no_think");
    expect(buildSummaryRequest("x", [], "gemini-2.5-flash-lite").system[0]!.text).not.toContain("/no_think");
  });
  test("a cut never splits a surrogate pair", () => {
    const req = buildSummaryRequest("😀".repeat(400), [], "m");
    expect(req.messages[0]!.content).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});

describe("gate", () => {
  const on = { experimental: { emitToolUseSummaries: true } };
  const off = { experimental: { emitToolUseSummaries: false } };
  test("default is on", () => {
    expect(summariesEnabled({}, {})).toBe(true);
  });
  test("settings decide without the env var", () => {
    expect(summariesEnabled({}, off)).toBe(false);
    expect(summariesEnabled({}, on)).toBe(true);
  });
  test("the env var beats settings: 0|1|true|false", () => {
    expect(summariesEnabled({ CHATCLI_EMIT_TOOL_USE_SUMMARIES: "0" }, on)).toBe(false);
    expect(summariesEnabled({ CHATCLI_EMIT_TOOL_USE_SUMMARIES: "false" }, on)).toBe(false);
    expect(summariesEnabled({ CHATCLI_EMIT_TOOL_USE_SUMMARIES: "1" }, off)).toBe(true);
    expect(summariesEnabled({ CHATCLI_EMIT_TOOL_USE_SUMMARIES: "TRUE" }, off)).toBe(true);
  });
  test("an unrecognised env value is ignored", () => {
    expect(summariesEnabled({ CHATCLI_EMIT_TOOL_USE_SUMMARIES: "maybe" }, off)).toBe(false);
    expect(summariesEnabled({ CHATCLI_EMIT_TOOL_USE_SUMMARIES: "" }, on)).toBe(true);
  });
  test("fast model: env beats settings; PROVIDER:model with colons in the model", () => {
    expect(fastModelSpec({ CHATCLI_FAST_MODEL: "GOOGLEAI:gemini-2.5-flash-lite" }, { fastModel: "OLLAMA:qwen3:0.6b" })).toBe("GOOGLEAI:gemini-2.5-flash-lite");
    expect(fastModelSpec({}, { fastModel: "OLLAMA:qwen3:0.6b" })).toBe("OLLAMA:qwen3:0.6b");
    expect(fastModelSpec({ CHATCLI_FAST_MODEL: " " }, {})).toBeUndefined();
    expect(parseFastModel("OLLAMA:qwen3:0.6b")).toEqual({ providerId: "OLLAMA", model: "qwen3:0.6b" });
    expect(parseFastModel("googleai:gemini-2.5-flash-lite")).toEqual({ providerId: "GOOGLEAI", model: "gemini-2.5-flash-lite" });
    expect(parseFastModel("OLLAMA")).toBeUndefined();
    expect(parseFastModel("OLLAMA:")).toBeUndefined();
    expect(parseFastModel(":m")).toBeUndefined();
  });
  test("fast model: its own base URL (@url suffix, settings object, CHATCLI_FAST_MODEL_BASE_URL)", () => {
    expect(parseFastModel("OLLAMA:qwen3:0.6b@http://127.0.0.1:9999")).toEqual({ providerId: "OLLAMA", model: "qwen3:0.6b", baseUrl: "http://127.0.0.1:9999" });
    expect(parseFastModel("OLLAMA:@http://127.0.0.1:9999")).toBeUndefined();
    expect(fastModelSpec({}, { fastModel: { model: "OLLAMA:qwen3:0.6b", baseUrl: "http://h:1" } })).toBe("OLLAMA:qwen3:0.6b@http://h:1");
    expect(fastModelSpec({}, { fastModel: { model: "OLLAMA:qwen3:0.6b" } })).toBe("OLLAMA:qwen3:0.6b");
    expect(fastModelSpec({ CHATCLI_FAST_MODEL_BASE_URL: "http://e:2" }, { fastModel: { model: "OLLAMA:m", baseUrl: "http://h:1" } })).toBe("OLLAMA:m@http://e:2");
    // An explicit suffix wins over the separate base URL.
    expect(fastModelSpec({ CHATCLI_FAST_MODEL: "OLLAMA:m@http://s:3", CHATCLI_FAST_MODEL_BASE_URL: "http://e:2" }, {})).toBe("OLLAMA:m@http://s:3");
  });
  test("summarizerFromConfig: no fast model, disabled, malformed, unknown provider, missing key → none", () => {
    const publish = () => {};
    expect(summarizerFromConfig({ env: {}, settings: {}, publish })).toEqual({ summarizer: undefined, reason: "no fastModel configured" });
    expect(summarizerFromConfig({ env: { CHATCLI_EMIT_TOOL_USE_SUMMARIES: "0" }, settings: { fastModel: "OLLAMA:m" }, publish }).summarizer).toBeUndefined();
    expect(summarizerFromConfig({ env: {}, settings: { fastModel: "OLLAMA" }, publish }).summarizer).toBeUndefined();
    expect(summarizerFromConfig({ env: {}, settings: { fastModel: "NOPE:m" }, publish }).summarizer).toBeUndefined();
    const noKey = summarizerFromConfig({ env: {}, settings: { fastModel: "GOOGLEAI:gemini-2.5-flash-lite" }, publish });
    expect(noKey.summarizer).toBeUndefined();
    expect("reason" in noKey && noKey.reason).toContain("API key");
    expect(summarizerFromConfig({ env: {}, settings: { fastModel: "OLLAMA:qwen3:0.6b" }, publish }).summarizer).toBeInstanceOf(ToolUseSummarizer);
    expect(summarizerFromConfig({ env: {}, settings: { fastModel: "OLLAMA:qwen3:0.6b" }, publish, subagent: true }).summarizer).toBeUndefined();
  });
});

/** An in-process provider whose replies resolve when the test says so. */
class GatedProvider implements LlmProvider {
  readonly id = "GATED";
  readonly requests: LlmRequest[] = [];
  private gates: Array<(events: LlmEvent[]) => void> = [];
  async listModels() {
    return [];
  }
  async modelInfo() {
    return undefined;
  }
  stream(request: LlmRequest, signal?: AbortSignal): AsyncIterable<LlmEvent> {
    this.requests.push(request);
    const p = new Promise<LlmEvent[]>((resolve) => {
      this.gates.push(resolve);
      signal?.addEventListener("abort", () => resolve([{ type: "error", error: { kind: "aborted", message: "aborted", retryable: false, fallbackable: false } }]));
    });
    return (async function* () {
      for (const e of await p) yield e;
    })();
  }
  answer(i: number, text: string): void {
    this.gates[i]!([{ type: "text_delta", text }, { type: "usage", usage: { inputTokens: 50, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0 } }, { type: "done", stopReason: "stop" }]);
  }
  fail(i: number): void {
    this.gates[i]!([{ type: "error", error: { kind: "server_error", message: "boom", status: 500, retryable: true, fallbackable: true } }]);
  }
}

function summarizer(extra: Partial<ConstructorParameters<typeof ToolUseSummarizer>[0]> = {}) {
  const provider = new GatedProvider();
  const events: AgentEvent[] = [];
  const logs: string[] = [];
  const usage: string[] = [];
  const s = new ToolUseSummarizer({
    provider,
    providerId: "GATED",
    model: "fast-1",
    publish: (e) => events.push(e),
    log: (m) => logs.push(m),
    onUsage: (_u, purpose, model, providerId) => usage.push(`${purpose}:${providerId}:${model}`),
    ...extra,
  });
  return { s, provider, events, logs, usage };
}

const twoReads = (batchId: string, a = "a.ts", b = "b.ts") => ({
  batchId,
  intent: "Let me look at both files.",
  calls: [call("read", { path: a }, "A", `${batchId}_1`), call("read", { path: b }, "B", `${batchId}_2`)],
});

describe("ToolUseSummarizer", () => {
  test("fire-and-forget: returns before the model answers; the label carries its batch and call ids", async () => {
    const { s, provider, events, usage } = summarizer();
    s.onBatchCompleted(twoReads("b1"));
    expect(events).toEqual([]);
    expect(s.inFlight).toBe(1);
    provider.answer(0, '"Read a.ts and b.ts"');
    await s.whenIdle();
    expect(events).toEqual([{ type: "tool_use_summary", batchId: "b1", label: "Read a.ts and b.ts", callIds: ["b1_1", "b1_2"] }]);
    expect(usage).toEqual(["tool_use_summary:GATED:fast-1"]);
  });

  test("a label that arrives after a newer batch still goes to its own batch", async () => {
    const { s, provider, events } = summarizer();
    s.onBatchCompleted(twoReads("b1"));
    s.onBatchCompleted(twoReads("b2", "c.ts", "d.ts"));
    provider.answer(1, "Read c.ts and d.ts");
    provider.answer(0, "Read a.ts and b.ts");
    await s.whenIdle();
    expect(events.map((e) => e.type === "tool_use_summary" && [e.batchId, e.label, e.callIds.join()])).toEqual([
      ["b2", "Read c.ts and d.ts", "b2_1,b2_2"],
      ["b1", "Read a.ts and b.ts", "b1_1,b1_2"],
    ]);
  });

  test("only successful calls count; a batch of failures gets nothing and no request", async () => {
    const { s, provider, events } = summarizer();
    s.onBatchCompleted({ batchId: "b1", intent: "", calls: [{ ...call("exec", { command: "x" }), isError: true }] });
    expect(provider.requests).toHaveLength(0);
    s.onBatchCompleted({ batchId: "b2", intent: "", calls: [{ ...call("exec", { command: "x" }, "nope", "f1"), isError: true }, call("read", { path: "ok.ts" }, "x", "r1")] });
    await s.whenIdle();
    expect(provider.requests).toHaveLength(0);
    expect(events).toEqual([{ type: "tool_use_summary", batchId: "b2", label: "Read ok.ts", callIds: ["r1"] }]);
  });

  test("the request lists only the successful calls", async () => {
    const { s, provider } = summarizer();
    s.onBatchCompleted({ batchId: "b1", intent: "go", calls: [{ ...call("exec", { command: "secret-failure" }), isError: true }, call("edit", { path: "x.ts" }, "done", "e1"), call("exec", { command: "make" }, "built", "e2")] });
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0]!.messages[0]!.content).not.toContain("secret-failure");
    provider.answer(0, "Edited x.ts and built");
    await s.whenIdle();
  });

  test("failures are silent: provider errors and error-shaped replies publish nothing and are logged", async () => {
    const { s, provider, events, logs } = summarizer();
    s.onBatchCompleted(twoReads("b1"));
    s.onBatchCompleted(twoReads("b2"));
    s.onBatchCompleted(twoReads("b3"));
    provider.fail(0);
    provider.answer(1, "Error: the model is overloaded");
    provider.answer(2, "   ");
    await s.whenIdle();
    expect(events).toEqual([]);
    expect(logs).toHaveLength(3);
  });

  test("a provider that throws is caught and logged", async () => {
    const throwing: LlmProvider = {
      id: "T",
      listModels: async () => [],
      modelInfo: async () => undefined,
      stream: () => {
        throw new Error("kaboom");
      },
    };
    const { s, events, logs } = summarizer({ provider: throwing });
    s.onBatchCompleted(twoReads("b1"));
    await s.whenIdle();
    expect(events).toEqual([]);
    expect(logs.join("\n")).toContain("kaboom");
  });

  test("close() aborts requests in flight: no label after it, later batches ignored", async () => {
    const { s, provider, events } = summarizer();
    s.onBatchCompleted(twoReads("b1"));
    s.close();
    await s.whenIdle();
    s.onBatchCompleted(twoReads("b2"));
    expect(provider.requests).toHaveLength(1);
    expect(events).toEqual([]);
  });

  test("a slow model is cut off by the timeout", async () => {
    const { s, events, logs } = summarizer({ timeoutMs: 50 });
    s.onBatchCompleted(twoReads("b1"));
    await s.whenIdle();
    expect(events).toEqual([]);
    expect(logs.join("\n")).toContain("aborted");
  });

  test("subagent sessions never label", async () => {
    const { s, provider, events } = summarizer({ subagent: true });
    s.onBatchCompleted(twoReads("b1"));
    s.onBatchCompleted({ batchId: "b2", intent: "", calls: [call("read", { path: "a" })] });
    await s.whenIdle();
    expect(provider.requests).toHaveLength(0);
    expect(events).toEqual([]);
  });
});
