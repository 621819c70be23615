import { describe, expect, test } from "bun:test";
import type { Message, ToolMessage } from "../../../src/protocol/message.ts";
import { DEFAULT_MICROCOMPACT_CONFIG, applyMicrocompact, describeMicrocompactReport } from "../../../src/agent/results/microcompact.ts";
import { countLines, detectContentType, formatChars } from "../../../src/agent/results/content-type.ts";
import { pipelineOptionsFromEnv } from "../../../src/agent/results/options.ts";
import { assistant, hasLoneSurrogate, numberedLines, tool, user } from "./history-builders.ts";

/** `goSource(450)` is 450 lines, ~28K chars, detected as Go. */
function goSource(lines: number): string {
  const body = Array.from({ length: lines - 1 }, (_, i) => `\tfmt.Println("statement number ${i}")`.padEnd(62, " "));
  return ["package main", ...body].join("\n");
}

/** `turns` assistant turns, each followed by one result produced by `make(k)`; returns the history. */
function session(turns: number, make: (k: number) => ToolMessage): Message[] {
  const h: Message[] = [user("start")];
  for (let k = 1; k <= turns; k++) {
    h.push(assistant(`turn ${k}`, [`c${k}`, "read"]));
    h.push(make(k));
  }
  return h;
}

const resultAt = (h: Message[], k: number): ToolMessage => h[2 * k] as ToolMessage;

describe("applyMicrocompact: age bands with the defaults", () => {
  const original = goSource(450);
  const h = session(6, (k) => tool(`c${k}`, original, "read"));
  const r = applyMicrocompact(h, DEFAULT_MICROCOMPACT_CONFIG);

  test("the current and previous turn are untouched", () => {
    expect(resultAt(r.messages, 6)).toBe(resultAt(h, 6));
    expect(resultAt(r.messages, 5)).toBe(resultAt(h, 5));
  });

  test("2 and 3 turns back: head 2,000 + tail 500 with a marker", () => {
    for (const k of [4, 3]) {
      const m = resultAt(r.messages, k);
      expect(m.meta?.compacted).toBe("truncated");
      const [head, rest] = m.content.split("\n[... ");
      expect(head!.length).toBeLessThanOrEqual(2000);
      expect(original.startsWith(head! + "\n")).toBe(true);
      const [marker, tail] = rest!.split(" ...]\n");
      expect(tail!.length).toBeLessThanOrEqual(500);
      expect(original.endsWith("\n" + tail!)).toBe(true);
      expect(marker).toBe(`${original.length - head!.length - tail!.length} chars omitted from old tool result`);
      expect(m.meta?.originalChars).toBe(original.length);
      expect(m.meta?.originalLines).toBe(450);
    }
  });

  test("4 or more turns back: a one-line stub with lines, size and type", () => {
    expect(formatChars(original.length)).toBe("28K");
    for (const k of [2, 1]) {
      const m = resultAt(r.messages, k);
      expect(m.content).toBe("[Old tool result cleared — 450 lines, 28K chars, Go source]");
      expect(m.meta?.compacted).toBe("summarized");
    }
  });

  test("the report and the UI line", () => {
    expect(r.report.truncated).toBe(2);
    expect(r.report.summarized).toBe(2);
    const freed = h.reduce((a, m, i) => a + (m.role === "tool" ? m.content.length - (r.messages[i] as ToolMessage).content.length : 0), 0);
    expect(r.report.charsFreed).toBe(freed);
    expect(describeMicrocompactReport(r.report)).toBe(`microcompact: 2 truncated, 2 summarized, ${formatChars(freed)} freed`);
  });

  test("idempotent: a second pass returns the same array", () => {
    const again = applyMicrocompact(r.messages, DEFAULT_MICROCOMPACT_CONFIG);
    expect(again.messages).toBe(r.messages);
    expect(describeMicrocompactReport(again.report)).toBe("");
  });

  test("the input is not mutated", () => {
    expect(resultAt(h, 1).content).toBe(original);
    expect(resultAt(h, 1).meta).toBeUndefined();
  });
});

describe("applyMicrocompact: progression and reachability", () => {
  test("a result truncated at age 2 is summarized at age 4 with its original stats", () => {
    const cfg = DEFAULT_MICROCOMPACT_CONFIG;
    const original = goSource(450);
    let h: Message[] = [user("q"), assistant("", ["c1", "read"]), tool("c1", original, "read"), assistant("", ["c2", "read"]), tool("c2", "ok"), assistant("", ["c3", "read"]), tool("c3", "ok")];
    h = applyMicrocompact(h, cfg).messages; // age 2
    expect((h[2] as ToolMessage).meta?.compacted).toBe("truncated");
    expect((h[2] as ToolMessage).content.length).toBeLessThan(cfg.minContentChars); // under the floor now
    h = [...h, assistant("", ["c4", "read"]), tool("c4", "ok")];
    h = applyMicrocompact(h, cfg).messages; // age 3: stays truncated
    expect((h[2] as ToolMessage).meta?.compacted).toBe("truncated");
    h = [...h, assistant("", ["c5", "read"]), tool("c5", "ok")];
    const r = applyMicrocompact(h, cfg); // age 4
    expect((r.messages[2] as ToolMessage).content).toBe("[Old tool result cleared — 450 lines, 28K chars, Go source]");
    expect(r.report.summarized).toBe(1);
  });

  test("ages count assistant messages across user prompts; plain assistant replies count too", () => {
    const big = numberedLines(100);
    const h: Message[] = [assistant("", "a"), tool("a", big), user("thanks"), assistant("you're welcome"), user("more"), assistant("", "b"), tool("b", "x")];
    const r = applyMicrocompact(h, DEFAULT_MICROCOMPACT_CONFIG);
    expect((r.messages[1] as ToolMessage).meta?.compacted).toBe("truncated");
  });

  test("nothing happens before the truncate band is reachable", () => {
    const h: Message[] = [assistant("", "a"), tool("a", numberedLines(200))];
    expect(applyMicrocompact(h, DEFAULT_MICROCOMPACT_CONFIG).messages).toBe(h);
  });
});

describe("applyMicrocompact: size floor and exemptions", () => {
  const old = (m: ToolMessage): Message[] => [assistant("", [m.toolCallId, m.name]), m, ...Array.from({ length: 4 }, (_, i) => assistant(`later ${i}`))];

  test("only results over 3,000 chars, judged by their original size", () => {
    const cfg = DEFAULT_MICROCOMPACT_CONFIG;
    expect(applyMicrocompact(old(tool("a", "x".repeat(3000), "read")), cfg).report.summarized).toBe(0);
    expect(applyMicrocompact(old(tool("a", "x".repeat(3001), "read")), cfg).report.summarized).toBe(1);
    const preview = tool("a", "y".repeat(2500), "read", { meta: { originalChars: 50_000, originalLines: 900 } });
    expect((applyMicrocompact(old(preview), cfg).messages[1] as ToolMessage).content).toBe("[Old tool result cleared — 900 lines, 50K chars, text]");
  });

  test("write/edit/exec tools (and aliases), error results and verbatim messages are kept whole", () => {
    const big = numberedLines(200);
    for (const name of ["write", "edit", "exec", "write_file", "edit_file", "bash", "shell", "run_command", "@exec", "Bash"]) {
      const h = old(tool("a", big, name));
      expect(applyMicrocompact(h, DEFAULT_MICROCOMPACT_CONFIG).messages).toBe(h);
    }
    const err = old(tool("a", big, "read", { isError: true, errorCode: "ENOENT" }));
    expect(applyMicrocompact(err, DEFAULT_MICROCOMPACT_CONFIG).messages).toBe(err);
    const verbatim = old(tool("a", big, "recall", { meta: { verbatim: true } }));
    expect(applyMicrocompact(verbatim, DEFAULT_MICROCOMPACT_CONFIG).messages).toBe(verbatim);
  });

  test("text-protocol feedback is compacted, plain user messages never", () => {
    const big = numberedLines(200);
    const h: Message[] = [assistant("<tool_call/>"), user(big, { kind: "tool_feedback" }), user(big), ...Array.from({ length: 4 }, () => assistant("x"))];
    const r = applyMicrocompact(h, DEFAULT_MICROCOMPACT_CONFIG);
    expect(r.messages[1]!.meta?.compacted).toBe("summarized");
    expect(r.messages[2]).toBe(h[2]!);
  });

  test("a saved full output keeps its path in the marker and in the stub", () => {
    const saved = "/tmp/chatcli-agent-x/tool-results/budget_a_1.txt";
    const m = tool("a", numberedLines(90), "read", { meta: { savedPath: saved, originalChars: 90_000, originalLines: 1500 } });
    const truncated = applyMicrocompact([assistant("", "a"), m, assistant("1"), assistant("2")], DEFAULT_MICROCOMPACT_CONFIG);
    expect((truncated.messages[1] as ToolMessage).content).toContain(`chars omitted from old tool result — full output saved to ${saved} ...]`);
    const summarized = applyMicrocompact([assistant("", "a"), m, assistant("1"), assistant("2"), assistant("3"), assistant("4")], DEFAULT_MICROCOMPACT_CONFIG);
    expect((summarized.messages[1] as ToolMessage).content).toBe(`[Old tool result cleared — 1500 lines, 90K chars, text — full output saved to ${saved}]`);
  });

  test("cuts never split a surrogate pair", () => {
    const h = [assistant("", "e"), tool("e", "🙂".repeat(5000), "read"), assistant("1"), assistant("2")];
    const text = (applyMicrocompact(h, DEFAULT_MICROCOMPACT_CONFIG).messages[1] as ToolMessage).content;
    expect(text).toContain("chars omitted from old tool result");
    expect(hasLoneSurrogate(text)).toBe(false);
  });
});

describe("microcompact options from the environment", () => {
  test("defaults", () => {
    expect(pipelineOptionsFromEnv({}).microcompact).toEqual({ truncateTurns: 2, summarizeTurns: 4, headChars: 2000, tailChars: 500, minContentChars: 3000 });
    expect(pipelineOptionsFromEnv({}).budget).toEqual({ perResultMaxChars: 20_000, turnBudgetChars: 200_000, previewHeadChars: 4000, previewTailChars: 1000 });
  });

  test("overrides move the bands", () => {
    const cfg = pipelineOptionsFromEnv({ CHATCLI_MICROCOMPACT_TRUNCATE_TURNS: "1", CHATCLI_MICROCOMPACT_SUMMARIZE_TURNS: "2" }).microcompact;
    const h = session(3, (k) => tool(`c${k}`, numberedLines(100), "read"));
    const r = applyMicrocompact(h, cfg);
    expect(resultAt(r.messages, 3)).toBe(resultAt(h, 3)); // age 0
    expect(resultAt(r.messages, 2).meta?.compacted).toBe("truncated"); // age 1
    expect(resultAt(r.messages, 1).meta?.compacted).toBe("summarized"); // age 2
    const wide = pipelineOptionsFromEnv({ CHATCLI_MICROCOMPACT_TRUNCATE_TURNS: "5", CHATCLI_MICROCOMPACT_SUMMARIZE_TURNS: "9" }).microcompact;
    expect(applyMicrocompact(h, wide).messages).toBe(h);
  });

  test("only positive integers are accepted", () => {
    const env = {
      CHATCLI_MICROCOMPACT_TRUNCATE_TURNS: "0",
      CHATCLI_MICROCOMPACT_SUMMARIZE_TURNS: "-3",
      CHATCLI_MICROCOMPACT_HEAD_CHARS: "1e3",
      CHATCLI_MICROCOMPACT_TAIL_CHARS: "abc",
      CHATCLI_MICROCOMPACT_MIN_CONTENT: " 4000 ",
      CHATCLI_TOOL_RESULT_MAX_CHARS: "10000",
      CHATCLI_TOOL_RESULT_BUDGET_CHARS: "",
    };
    const o = pipelineOptionsFromEnv(env);
    expect(o.microcompact).toEqual({ truncateTurns: 2, summarizeTurns: 4, headChars: 2000, tailChars: 500, minContentChars: 4000 });
    expect(o.budget.perResultMaxChars).toBe(10_000);
    expect(o.budget.turnBudgetChars).toBe(200_000);
  });
});

describe("content type detection", () => {
  const cases: Array<[string, string]> = [
    ['  {"a": 1}', "JSON"],
    ["[1, 2, 3]", "JSON"],
    ["package main\n\nfunc main() {}", "Go source"],
    ["import os\n\ndef main():\n    pass", "Python source"],
    ["const x = 1;\nfunction go() {}", "JavaScript source"],
    ["diff --git a/x.go b/x.go\n+package main", "diff"],
    ["--- a/x\n+++ b/x", "diff"],
    ["commit 1234abcd\nAuthor: A <a@b>\n\n    package bump", "git log"],
    ["hello world", "text"],
    ["---\nyaml: true", "text"],
    [`${"prose ".repeat(300)}def late`, "text"],
    // As `read` returns a file: a `<n>\t` gutter before each line, the number right-aligned.
    ["  1\t[\n  2\t  {\n  3\t    \"id\": 0", "JSON"],
    ["1\tdiff --git a/x b/x\n2\t--- a/x", "diff"],
    ["  9\t  hello\n 10\t{", "text"],
  ];
  for (const [content, kind] of cases) {
    test(`${JSON.stringify(content.slice(0, 24))} → ${kind}`, () => {
      expect(detectContentType(content)).toBe(kind as ReturnType<typeof detectContentType>);
    });
  }

  test("line counts and sizes", () => {
    expect(countLines("")).toBe(0);
    expect(countLines("a")).toBe(1);
    expect(countLines("a\nb")).toBe(2);
    expect(countLines("a\nb\n")).toBe(2);
    expect(formatChars(850)).toBe("850");
    expect(formatChars(41_200)).toBe("41K");
    expect(formatChars(1_400_000)).toBe("1.4M");
  });
});
