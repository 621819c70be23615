import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message, ToolMessage } from "../../../src/protocol/message.ts";
import { createBudgetState } from "../../../src/agent/results/budget.ts";
import { pipelineOptionsFromEnv } from "../../../src/agent/results/options.ts";
import { validateToolResultPairing } from "../../../src/agent/results/pairing.ts";
import { runResultPipeline, type PipelineContext } from "../../../src/agent/results/pipeline.ts";
import { createSessionWorkspace, type SessionWorkspace } from "../../../src/store/session-workspace.ts";
import { readTool } from "../../../src/tool/builtin/read.ts";
import { createPathPolicy } from "../../../src/tool/workspace.ts";
import { assistant, numberedLines, pick, prng, tool, user } from "./history-builders.ts";

let base: string;
let ws: SessionWorkspace;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "chatcli-pipeline-test-"));
  ws = createSessionWorkspace({ env: {}, tmpRoot: base });
});
afterEach(() => {
  ws.cleanup();
  rmSync(base, { recursive: true, force: true });
});

function ctx(env: Record<string, string> = {}): PipelineContext {
  return { options: pipelineOptionsFromEnv(env), budgetState: createBudgetState(), toolResultsDir: ws.toolResultsDir };
}

describe("runResultPipeline", () => {
  test("nothing to do: same array and an empty summary", () => {
    const h: Message[] = [user("hi"), assistant("", "a"), tool("a", "small"), assistant("done")];
    const r = runResultPipeline(h, ctx());
    expect(r.messages).toBe(h);
    expect(r.summary).toBe("");
  });

  test("chains pairing → budget → microcompact and sums it up in one line", () => {
    const h: Message[] = [
      user("q"),
      assistant("", ["r1", "read"]),
      tool("r1", numberedLines(300), "read"),
      assistant("", ["r2", "read"]),
      tool("r2", "ok", "read"),
      assistant("", ["r3", "read"]),
      tool("r3", "ok", "read"),
      assistant("", ["big", "read"], ["lost", "read"]),
      tool("big", numberedLines(1000), "read"),
    ];
    const r = runResultPipeline(h, ctx());
    expect(validateToolResultPairing(r.messages)).toBe(true);
    expect(r.pairing.syntheticResultsInjected).toBe(1);
    expect(r.budget.truncatedPerResult).toBe(1);
    expect(r.microcompact.truncated).toBe(1);
    expect(r.summary).toMatch(/^pairing: 1 missing result closed · budget: 1 result truncated, \d+K moved out of context · microcompact: 1 truncated, 0 summarized, \d+K freed$/);
    // Idempotent over its own output.
    const again = runResultPipeline(r.messages, { ...ctx(), budgetState: createBudgetState() });
    expect(again.messages).toBe(r.messages);
    expect(again.summary).toBe("");
  });

  test("a session over many turns: one file per large result, previews stable until compaction", () => {
    const c = ctx();
    let persistent: Message[] = [user("start")];
    const seen = new Map<string, string>(); // call id → first preview
    for (let turn = 1; turn <= 8; turn++) {
      const ids = [`t${turn}_a`, `t${turn}_b`];
      persistent = [...persistent, assistant("", ...ids.map((id): [string, string] => [id, "read"])), tool(ids[0]!, numberedLines(600, 60, `turn${turn}`), "read"), tool(ids[1]!, "small", "read")];
      const r = runResultPipeline(persistent, c);
      expect(validateToolResultPairing(r.messages)).toBe(true);
      for (const m of r.messages) {
        if (m.role !== "tool" || !m.meta?.savedPath || m.meta.compacted) continue;
        const first = seen.get(m.toolCallId);
        if (first === undefined) seen.set(m.toolCallId, m.content);
        else expect(m.content).toBe(first);
      }
      persistent = r.messages;
    }
    expect(readdirSync(ws.toolResultsDir)).toHaveLength(8);
    const oldest = persistent[2] as ToolMessage;
    expect(numberedLines(600, 60, "turn1")).toHaveLength(36_599);
    expect(oldest.content).toBe(`[Old tool result cleared — 600 lines, 37K chars, text — full output saved to ${oldest.meta?.savedPath}]`);
  });

  test("the saved file is readable through the read tool with line ranges", async () => {
    const original = numberedLines(1200);
    const r = runResultPipeline([assistant("", ["x", "read"]), tool("x", original, "read")], ctx());
    const saved = (r.messages[1] as ToolMessage).meta?.savedPath;
    expect(saved).toBeDefined();
    const project = mkdtempSync(join(base, "project-"));
    const paths = createPathPolicy({ projectRoot: project, extraReadPaths: [ws.root] });
    const out = await readTool.run(
      { path: saved, start_line: 700, end_line: 701 },
      { projectRoot: project, cwd: project, paths, signal: new AbortController().signal, callId: "r", env: {} },
    );
    expect(out.isError ?? false).toBe(false);
    expect(out.text).toContain("line 700 ");
    expect(out.text).toContain("line 701 ");
    expect(out.text).not.toContain("line 702 ");
  });

  test("random histories with large results: always valid, a second pass is a no-op", () => {
    const rand = prng(20240611);
    const ids = ["web_fetch:0", "web_fetch:1", "exec:2", ""];
    const sizes = [10, 4000, 25_000];
    for (let c = 0; c < 150; c++) {
      const h: Message[] = [];
      const n = Math.floor(rand() * 16);
      for (let i = 0; i < n; i++) {
        const r = rand();
        if (r < 0.15) h.push(user(`u${i}`));
        else if (r < 0.2) h.push(user("x".repeat(pick(rand, sizes)), { kind: "tool_feedback" }));
        else if (r < 0.5) h.push(assistant(`a${i}`, ...Array.from({ length: Math.floor(rand() * 3) }, () => pick(rand, ids))));
        else h.push(tool(pick(rand, ids), numberedLines(Math.ceil(pick(rand, sizes) / 40), 40), pick(rand, ["read", "exec", "search"])));
      }
      const context: PipelineContext = { ...ctx({ CHATCLI_TOOL_RESULT_BUDGET_CHARS: "30000" }), budgetState: createBudgetState() };
      const first = runResultPipeline(h, context);
      expect(validateToolResultPairing(first.messages)).toBe(true);
      const second = runResultPipeline(first.messages, context);
      expect(second.messages).toBe(first.messages);
    }
  });
});
