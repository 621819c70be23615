/**
 * The ToolHost the agent uses: builtin tools + path policy + permission policy + overflow persistence.
 * Every call goes through the policy (allow / ask / deny); an `ask` becomes an approval round trip.
 * Failures of any kind come back as error results for the model, never as throws.
 */
import { safeHead } from "../util/text.ts";
import { readFileSync } from "node:fs";
import type { ToolSpec } from "../protocol/llm.ts";
import type { ToolDefinition } from "../tool/tool.ts";
import type { PathPolicy } from "../tool/workspace.ts";
import { PathError } from "../tool/workspace.ts";
import { builtinTools, findTool } from "../tool/registry.ts";
import { unifiedDiff } from "../tool/builtin/diff.ts";
import { denialMessage, type PermissionPolicy } from "../tool/permission.ts";
import type { ToolCallRequest, ToolHost, ToolRunContext, ToolRunResult } from "./tool-host.ts";

export interface ToolHostOptions {
  projectRoot: string;
  cwd: string;
  paths: PathPolicy;
  policy: PermissionPolicy;
  env: Record<string, string | undefined>;
  /** Saves a tool's full output when its cap cut it; returns the path. */
  saveOverflow?: (callId: string, fullText: string) => string | undefined;
  /** Called before a file is written/edited (checkpoint snapshots). */
  beforeFileChange?: (absPath: string) => void;
  /** Called around exec so changed files can be snapshotted. */
  aroundExec?: { before(): unknown; after(token: unknown): void };
  tools?: ToolDefinition[];
}

const FILE_WRITE_TOOLS = new Set(["write", "edit"]);
const READ_PATH_TOOLS = new Set(["read", "search", "tree", "list", "glob"]);

export function createToolHost(o: ToolHostOptions): ToolHost {
  const tools = o.tools ?? builtinTools();
  const find = (name: string) => findTool(name, tools);
  return {
    specs: (): ToolSpec[] => tools.map((t) => t.spec()),
    canonicalName: (name) => find(name)?.name,
    title: (name, args) => find(name)?.describe(args ?? {}) ?? name,
    run: (call, ctx) => runCall(o, find, call, ctx),
  };
}

async function runCall(o: ToolHostOptions, find: (n: string) => ToolDefinition | undefined, call: ToolCallRequest, ctx: ToolRunContext): Promise<ToolRunResult> {
  const tool = find(call.name);
  if (!tool) {
    return { text: `Unknown tool "${call.name}". Available tools: ${builtinTools().map((t) => t.name).join(", ")}. Use one of them with the documented arguments.`, isError: true, errorCode: "unknown_tool" };
  }
  if (!call.args) {
    return { text: `The arguments of ${tool.name} could not be read (${call.argsError ?? "not a JSON object"}). Send them again as one valid JSON object.`, isError: true, errorCode: "invalid_args" };
  }
  const args = call.args;
  const path = typeof args.path === "string" ? args.path : typeof args.file === "string" ? args.file : undefined;
  const command = typeof args.command === "string" ? args.command : undefined;
  let absPath: string | undefined;
  if (path && FILE_WRITE_TOOLS.has(tool.name)) {
    try {
      absPath = o.paths.resolveWrite(path);
    } catch (err) {
      if (err instanceof PathError) return { text: err.message, isError: true, errorCode: err.code };
      throw err;
    }
  }
  // A path the tool would refuse anyway (outside the allowed roots, a symlink escape, a system path) is refused
  // now, with the path policy's clear error, instead of first asking the user to approve a call that cannot run.
  if (path && READ_PATH_TOOLS.has(tool.name)) {
    try {
      o.paths.resolveRead(path);
    } catch (err) {
      if (err instanceof PathError) return { text: err.message, isError: true, errorCode: err.code };
      throw err;
    }
  }
  const decision = o.policy.decide({ tool: tool.name, args, ...(absPath ?? path ? { path: absPath ?? path } : {}), ...(command ? { command } : {}) });
  if (decision.action === "deny") return { text: denialMessage(decision.reason), isError: true, errorCode: "permission_denied" };
  if (decision.action === "ask") {
    const answer = await ctx.requestApproval({ tool: tool.name, action: actionText(tool.name, args, path, command), reason: decision.reason, ...diffFor(tool.name, args, absPath) });
    if (answer === "always" || answer === "deny_always") {
      await o.policy.remember(answer, { tool: tool.name, args, ...(absPath ?? path ? { path: absPath ?? path } : {}), ...(command ? { command } : {}) }).catch(() => undefined);
    }
    if (answer === "deny" || answer === "deny_always") {
      return { text: denialMessage(ctx.signal.aborted ? "the run was interrupted" : "approval was not given (the user declined, or there was no one to ask)"), isError: true, errorCode: "permission_denied" };
    }
  }
  if (ctx.signal.aborted) return { text: "[not executed: the run was interrupted]", isError: true, errorCode: "not_executed" };
  if (absPath && o.beforeFileChange) o.beforeFileChange(absPath);
  const token = tool.name === "exec" ? o.aroundExec?.before() : undefined;
  try {
    const out = await tool.run(args, {
      projectRoot: o.projectRoot,
      cwd: o.cwd,
      paths: o.paths,
      signal: ctx.signal,
      callId: call.id,
      env: o.env,
      onUpdate: ctx.onUpdate,
      ...(o.saveOverflow ? { saveOverflow: (full: string) => o.saveOverflow!(call.id, full) } : {}),
    });
    const r: ToolRunResult = { text: out.text, isError: out.isError === true };
    if (out.errorCode) r.errorCode = out.errorCode;
    if (out.details) r.details = out.details;
    return r;
  } finally {
    if (tool.name === "exec") o.aroundExec?.after(token);
  }
}

function actionText(tool: string, args: Record<string, unknown>, path: string | undefined, command: string | undefined): string {
  if (command) return command;
  if (path) return path;
  return `${tool} ${safeHead(JSON.stringify(args), 200)}`;
}

function diffFor(tool: string, args: Record<string, unknown>, absPath: string | undefined): { diff?: string } {
  if (!absPath) return {};
  let before = "";
  try {
    before = readFileSync(absPath, "utf8");
  } catch {
    before = "";
  }
  let after: string | undefined;
  if (tool === "write" && typeof args.content === "string") after = args.content;
  if (tool === "edit") {
    const edits = Array.isArray(args.edits) ? (args.edits as Array<Record<string, unknown>>) : [args];
    after = before;
    for (const e of edits) {
      if (typeof e.old_string !== "string" || typeof e.new_string !== "string") continue;
      after = e.replace_all === true ? after.split(e.old_string).join(e.new_string) : after.replace(e.old_string, e.new_string);
    }
  }
  if (after === undefined) return {};
  try {
    return { diff: unifiedDiff(before, after, { oldName: absPath, newName: absPath, maxChars: 8_000 }).text };
  } catch {
    return {};
  }
}
