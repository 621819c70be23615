/**
 * Headless consumer of a Session: `text` streams the answer to stdout; `json` prints one result object at
 * the end; `stream-json` prints every AgentEvent as one JSON line (the public, versioned schema).
 * Notices, retries and errors go to stderr in text mode. Resolves with the exit code.
 */
import type { AgentEvent } from "../../protocol/events.ts";
import type { Session } from "../../agent/session/session.ts";
import type { OutputFormat } from "../../cli/args.ts";
import { withDeprecatedAliases, type HeadlessResultObject } from "../../protocol/headless-result.ts";
import { MarkupHoldback } from "../shared/markup-holdback.ts";
import { DeltaCoalescer } from "./delta-coalescer.ts";
import { t } from "../../i18n/i18n.ts";
import { toolResultForPeople } from "../shared/tool-error-line.ts";
import { compactionLine } from "../shared/compaction-line.ts";

/** The exit code of a run the budget limit stopped (`--max-budget-usd`, settings `maxBudgetUsd`). */
export const BUDGET_EXIT_CODE = 3;

export interface HeadlessResult {
  exitCode: number;
  finalText: string;
  errorMessage?: string;
}

export interface HeadlessOptions {
  session: Session;
  prompt: string;
  format: OutputFormat;
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  describeError: (e: Extract<AgentEvent, { type: "error" }>) => string;
  startedAt: number;
  /**
   * Called right after session.started is emitted, before the prompt is submitted (start-up notices). A returned
   * promise is awaited before the output ends, so what it publishes late is still printed.
   */
  afterStart?: () => Promise<void> | void;
  /** stream-json: awaited after the run, before unsubscribing, so late events (tool-use summaries) are printed. */
  afterIdle?: () => Promise<void>;
}

export async function runHeadless(o: HeadlessOptions): Promise<HeadlessResult> {
  let finalText = "";
  let current = "";
  let printedAny = false;
  let lastChar = "\n";
  let errorMessage: string | undefined;
  let stopReason = "stop";
  let turns = 0;
  let usage: Extract<AgentEvent, { type: "turn.completed" }>["totalUsage"] | undefined;
  let sessionId = "";
  // `-p "!cmd"` (issue 25): the command runs without a model call; its output is the answer.
  const shellCommand = o.prompt.trimStart().startsWith("!") ? o.prompt.trimStart().slice(1).trim() : undefined;
  // Text mode streams the answer but never the text-protocol tool-call markup (see markup-holdback.ts).
  const holdback = new MarkupHoldback((text) => {
    o.stdout.write(text);
    printedAny = true;
    lastChar = text.slice(-1);
  });

  // turn.completed stays the last event: one that comes before the afterStart work has finished waits for it.
  let startDone = false;
  const held: AgentEvent[] = [];
  const unsubscribe = o.session.subscribe((e) => {
    if (!startDone && e.type === "turn.completed") held.push(e);
    else handle(e);
  });
  const streamJson = o.format === "stream-json" ? new DeltaCoalescer((e) => o.stdout.write(`${JSON.stringify(e)}\n`)) : null;
  const handle = (e: AgentEvent): void => {
    streamJson?.push(e);
    // A subagent's tool calls: in stream-json only (above), not the run's own lines or result.
    if ((e.type === "tool.started" || e.type === "tool.completed") && e.agentId) return;
    switch (e.type) {
      case "session.started":
        sessionId = e.sessionId;
        return;
      case "message.delta":
        if (e.text) {
          current += e.text;
          if (o.format === "text") holdback.push(e.text);
        }
        return;
      case "message.completed":
        if (e.message.role === "assistant") {
          turns++;
          const shown = e.displayText ?? e.message.content;
          if (o.format === "text") holdback.complete(shown);
          if (shown.trim()) finalText = shown;
        }
        current = "";
        return;
      case "tool.started":
        if (o.format === "text") {
          if (printedAny && lastChar !== "\n") o.stdout.write("\n");
          o.stderr.write(`● ${e.title}\n`);
          lastChar = "\n";
        }
        return;
      case "tool.updated":
        if (shellCommand !== undefined && o.format === "text") {
          o.stdout.write(e.output);
          printedAny = true;
          lastChar = e.output.slice(-1) || lastChar;
        }
        return;
      case "tool.completed":
        if (shellCommand !== undefined) finalText = e.result;
        if (o.format === "text" && e.isError) o.stderr.write(`  ✗ ${firstLine(toolResultForPeople(e))}\n`);
        return;
      case "retry":
        if (o.format === "text") o.stderr.write(`${t("headless.retry", { provider: e.error.provider ?? "provider", kind: e.error.kind, seconds: (e.delayMs / 1000).toFixed(1), attempt: e.attempt })}\n`);
        return;
      case "provider.switched":
        if (o.format === "text") o.stderr.write(`${t("headless.switched", { from: e.from, to: e.to, reason: e.reason })}\n`);
        return;
      case "notice":
        if (o.format === "text" && e.level !== "info") o.stderr.write(`${e.text}\n`);
        return;
      case "pipeline":
        if (o.format === "text") o.stderr.write(`${e.summary}\n`);
        return;
      case "compaction":
        if (o.format === "text") o.stderr.write(`${compactionLine(e)}\n`);
        return;
      case "approval.requested":
        return;
      case "error":
        errorMessage = o.describeError(e);
        return;
      case "turn.completed":
        stopReason = e.stopReason;
        usage = e.totalUsage;
        return;
      default:
        return;
    }
  };

  o.session.start();
  const started = o.afterStart?.();
  o.session.submit(shellCommand !== undefined ? { type: "shell", command: shellCommand } : { type: "user_input", text: o.prompt });
  await o.session.idle();
  await started;
  startDone = true;
  for (const e of held.splice(0)) handle(e);
  if (o.format === "stream-json" && o.afterIdle) await o.afterIdle().catch(() => undefined);
  unsubscribe();
  streamJson?.flush();
  if (!finalText && current) finalText = current;

  const interrupted = stopReason === "interrupted";
  const failed = !interrupted && (stopReason === "error" || stopReason === "shell_error" || stopReason === "budget" || errorMessage !== undefined);
  // 3: the budget limit stopped the run (--max-budget-usd); see README "Exit codes".
  const exitCode = interrupted ? 130 : stopReason === "budget" ? BUDGET_EXIT_CODE : failed ? 1 : 0;
  if (o.format === "text") {
    if (printedAny && lastChar !== "\n") o.stdout.write("\n");
    if (errorMessage) o.stderr.write(`${errorMessage}\n`);
  } else if (o.format === "json") {
    const result: HeadlessResultObject = {
      type: "result",
      subtype: interrupted ? "interrupted" : failed ? "error" : "success",
      isError: failed,
      result: finalText,
      stopReason,
      numTurns: turns,
      durationMs: Date.now() - o.startedAt,
      sessionId,
      usage: usage ?? null,
      ...(errorMessage ? { error: errorMessage } : {}),
    };
    o.stdout.write(`${JSON.stringify(withDeprecatedAliases(result))}\n`);
    if (errorMessage) o.stderr.write(`${errorMessage}\n`);
  } else if (errorMessage) {
    o.stderr.write(`${errorMessage}\n`);
  }
  const r: HeadlessResult = { exitCode, finalText };
  if (errorMessage) r.errorMessage = errorMessage;
  return r;
}

function firstLine(s: string): string {
  // indexOf, not split: a result can be megabytes of output.
  const nl = s.indexOf("\n");
  const l = nl < 0 ? s : s.slice(0, nl);
  return l.length > 200 ? `${l.slice(0, 200)}…` : l;
}
