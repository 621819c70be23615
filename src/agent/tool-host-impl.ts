/**
 * The ToolHost the agent uses: builtin tools + path policy + permission policy + overflow persistence.
 * A call goes through three steps, each seeing the same prepared arguments:
 *   1. prepare: decode, alias-normalise (`filename` → `path`) and validate once; resolve the file path;
 *   2. authorize: the permission policy on the prepared arguments; an `ask` becomes an approval round trip whose
 *      diff comes from the tool's own preview (for edit: the same planEdit the write uses);
 *   3. execute: checkpoint snapshot, then the tool on the prepared arguments.
 * Failures of any kind come back as error results for the model, never as throws.
 */
import { render, t } from "../i18n/i18n.ts";
import { safeHead } from "../util/text.ts";
import type { ToolSpec } from "../protocol/llm.ts";
import type { PreparedArgs, ToolDefinition } from "../tool/tool.ts";
import type { PathPolicy } from "../tool/workspace.ts";
import { PathError } from "../tool/workspace.ts";
import { builtinTools, findTool } from "../tool/registry.ts";
import { unifiedDiff } from "../tool/builtin/diff.ts";
import { denialMessage, type DecisionSource, type PermissionDecision, type PermissionPolicy, type PermissionRequest } from "../tool/permission.ts";
import type { ConfigGuard } from "../tool/permission/config-guard.ts";
import type { ToolCallRequest, ToolHost, ToolRunContext, ToolRunResult } from "./tool-host.ts";
import type { SandboxRuntime } from "../sandbox/sandbox.ts";
import type { ExecSandbox } from "../sandbox/types.ts";
import { offerRerunOutsideSandbox } from "./sandbox-rerun.ts";
import { withModelNote } from "./model-note.ts";
import { pathsOutsideProject } from "../tool/permission/outside-paths.ts";
import { homedir } from "node:os";
import { resolve } from "node:path";
import type { HookedCall, ToolCallHooks } from "./tool-hooks.ts";
import type { FileAccess } from "../tool/file-access.ts";

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
  /** Called around exec so changed files can be snapshotted; both halves are awaited (they scan asynchronously). */
  aroundExec?: { before(): unknown; after(token: unknown): void | Promise<void> };
  /**
   * Around an exec no person approved: protected files (chatcli's settings and policy, git's config and hooks, rc
   * files) the command changed are put back and the result says so (permission/config-guard.ts).
   */
  configGuard?: ConfigGuard;
  tools?: ToolDefinition[];
  /** The user's home directory, for `~` in the approval's "outside the project" paths. Default: os.homedir(). */
  userHome?: string;
  /** The OS sandbox exec runs in; its probe is awaited before the first exec is decided. Absent = none. */
  sandbox?: SandboxRuntime;
  /** User hooks around each call (PreToolUse, PermissionRequest, PostToolUse[Failure]); see tool-hooks.ts. */
  hooks?: ToolCallHooks;
  /** Tools added after start (plugins), read on every call and every specs(). */
  extraTools?: () => ToolDefinition[];
  /** Tools that come and go while the session runs (MCP servers): offered after the builtins, found by exact name first. */
  dynamicTools?: { tools(): readonly ToolDefinition[]; find(name: string): ToolDefinition | undefined };
  /** read/write/edit get and put text through this (an editor's buffers over ACP), after policy and approval. */
  files?: FileAccess;
}

/** A call after step 1: everything later steps need, computed once. */
export interface PreparedCall {
  id: string;
  tool: ToolDefinition;
  args: PreparedArgs;
  /** The path argument as given (canonical key `path`), for the approval text. */
  path?: string;
  /** Resolved absolute path of the file a write/edit changes. */
  absPath?: string;
  command?: string;
  /** What the permission policy sees (also what remember() persists from). */
  request: PermissionRequest;
  typedByUser?: boolean;
}

const FILE_WRITE_TOOLS = new Set(["write", "edit"]);
/**
 * The asks a `!` command the user typed answers by being typed (not read-only, an `ask` rule, the sandbox's network
 * question). Protected paths, lines the dangerous check cannot clear and safety-immune commands still ask.
 */
const USER_APPROVES: ReadonlySet<DecisionSource> = new Set(["default", "rule", "sandbox"]);
const READ_PATH_TOOLS = new Set(["read", "search", "tree", "list", "glob"]);

export function createToolHost(o: ToolHostOptions): ToolHost {
  const base = o.tools ?? builtinTools();
  const all = () => (o.extraTools ? [...base, ...o.extraTools()] : base);
  const find = (name: string) => o.dynamicTools?.find(name) ?? findTool(name, all());
  return {
    specs: (): ToolSpec[] => [...all().map((t) => t.spec()), ...(o.dynamicTools?.tools().map((t) => t.spec()) ?? [])],
    canonicalName: (name) => find(name)?.name,
    title: (name, args) => find(name)?.describe(args ?? {}) ?? name,
    run: async (call, ctx) => {
      let prepared = prepareCall(o, find, call);
      if ("text" in prepared) return prepared;
      if (!o.hooks) {
        const verdict = await authorize(o, prepared, ctx);
        return "how" in verdict ? execute(o, verdict.p, ctx, verdict.how) : verdict;
      }
      // Hooks (tool-hooks.ts): PreToolUse before the policy, PermissionRequest before a prompt, Post* after.
      const pre = await o.hooks.before(hookedCall(prepared), ctx.signal);
      const notes = [...pre.contexts];
      if (pre.decision === "deny") return withNotes(hookDenial(prepared, pre.reason, "PreToolUse"), notes);
      if (pre.updatedInput) {
        const again = prepareCall(o, find, { id: call.id, name: prepared.tool.name, args: fromHookInput(pre.updatedInput, prepared) });
        if ("text" in again) return withNotes(again, notes);
        prepared = again;
      }
      const verdict = await authorize(o, prepared, ctx, { allow: pre.decision === "allow", ...(pre.decision === "ask" ? { ask: pre.reason ?? "" } : {}), find });
      if (!("how" in verdict)) return withNotes(verdict, notes);
      const result = await execute(o, verdict.p, ctx, verdict.how);
      if (result.errorCode !== "not_executed") notes.push(...(await o.hooks.after(hookedCall(verdict.p), result, ctx.signal)));
      return withNotes(result, notes);
    },
  };
}

/** What hooks see of a call: the prepared arguments, and the file's absolute path for file tools. */
function hookedCall(p: PreparedCall): HookedCall {
  return { id: p.id, tool: p.tool.name, input: p.args, ...(p.absPath ? { absPath: p.absPath } : p.path ? { absPath: p.path } : {}) };
}

/** A hook's updatedInput → arguments: Claude Code's `file_path` (absolute) stands for our `path`. */
function fromHookInput(input: Record<string, unknown>, p: PreparedCall): Record<string, unknown> {
  const out = { ...input };
  if (typeof out.file_path === "string") {
    if (out.path === undefined || out.path === p.args.path) out.path = out.file_path;
    delete out.file_path;
  }
  return out;
}

function hookDenial(p: PreparedCall, reason: string | undefined, event: string): ToolRunResult {
  const why = reason?.trim() || "no reason given";
  return {
    text: `Blocked by the user's ${event} hook: ${why}\nThe user's hook refused this call. Do not retry the same call; change your approach or ask the user.`,
    isError: true,
    errorCode: "permission_denied",
    details: { action: actionText(p), deniedBy: "policy", deniedBecause: t("hooks.deniedBecause", { reason: why }) },
  };
}

function withNotes(r: ToolRunResult, notes: string[]): ToolRunResult {
  return notes.reduce((acc, n) => withModelNote(acc, n, "after"), r);
}

/** Policy asks a hook's `allow` may answer: only the mode's default question, never a protected path, a dangerous or
 * safety-immune command, an ask rule or the sandbox's question (tool-hooks.ts, rule 3). */
const HOOK_SKIPPABLE = new Set(["default", "mode"]);
/** Default asks that still are not a hook's to answer: a line the parser could not read (nothing about it is known). */
const HOOK_NEVER = new Set(["perm.unparsed", "perm.execNoCommand"]);

function hookMayAnswer(d: PermissionDecision): boolean {
  return HOOK_SKIPPABLE.has(d.source) && !HOOK_NEVER.has(d.reasonText?.key ?? "");
}

interface HookVerdicts {
  allow: boolean;
  /** PreToolUse said `ask` (the reason, possibly empty). */
  ask?: string;
  find: (n: string) => ToolDefinition | undefined;
}

function prepareCall(o: ToolHostOptions, find: (n: string) => ToolDefinition | undefined, call: ToolCallRequest): PreparedCall | ToolRunResult {
  const tool = find(call.name);
  if (!tool) {
    return { text: `Unknown tool "${call.name}". Available tools: ${builtinTools().map((t) => t.name).join(", ")}. Use one of them with the documented arguments.`, isError: true, errorCode: "unknown_tool" };
  }
  if (!call.args) {
    return { text: `The arguments of ${tool.name} could not be read (${call.argsError ?? "not a JSON object"}). Send them again as one valid JSON object.`, isError: true, errorCode: "invalid_args" };
  }
  const prepared = tool.prepare(call.args);
  if (!prepared.ok) return { text: prepared.message, isError: true, errorCode: "invalid_args" };
  const args = prepared.args;
  const path = typeof args.path === "string" && args.path !== "" ? args.path : undefined;
  const command = tool.name === "exec" && typeof args.command === "string" ? args.command : tool.asExec?.(args);
  let absPath: string | undefined;
  try {
    if (path && FILE_WRITE_TOOLS.has(tool.name)) absPath = o.paths.resolveWrite(path);
    // A path the tool would refuse anyway (outside the allowed roots, a symlink escape, a system path) is refused
    // now, with the path policy's clear error, instead of first asking the user to approve a call that cannot run.
    if (path && READ_PATH_TOOLS.has(tool.name)) o.paths.resolveRead(path);
  } catch (err) {
    if (err instanceof PathError) return { text: err.message, isError: true, errorCode: err.code };
    throw err;
  }
  const where = absPath ?? path;
  // A program-running tool (asExec) is decided exactly as the exec of its command line.
  const request: PermissionRequest = tool.asExec && command !== undefined ? { tool: "exec", args: { command }, command } : { tool: tool.name, args, ...(where ? { path: where } : {}), ...(command !== undefined ? { command } : {}) };
  return { id: call.id, tool, args, request, ...(call.typedByUser ? { typedByUser: true } : {}), ...(path ? { path } : {}), ...(absPath ? { absPath } : {}), ...(command !== undefined ? { command } : {}) };
}

/**
 * How a call got to run: allowed by the policy alone, or approved by a person; `approved-protected`: an exec a
 * person approved because it may change a protected path, which the sandbox would only refuse, so it runs outside.
 */
export type Authorization = "allowed" | "approved" | "approved-protected";

/** The authorization when the call may run (with the call as finally prepared); else the result for the model. */
async function authorize(o: ToolHostOptions, p: PreparedCall, ctx: ToolRunContext, hooks?: HookVerdicts): Promise<ToolRunResult | { how: Authorization; p: PreparedCall }> {
  // The policy reads the sandbox's state: make sure the probe has answered before an exec is decided.
  if ((p.tool.name === "exec" || p.tool.asExec) && o.sandbox) await o.sandbox.ready();
  const decision = o.policy.decide(p.request);
  // details (for the UI) say who denied what and why (`deniedBecause`: the policy's reason in the person's
  // language); the text is for the model, in English (ui/shared/tool-error-line.ts).
  if (decision.action === "deny") {
    const deniedBecause = decision.reasonText ? render(decision.reasonText) : decision.reason;
    return { text: denialMessage(decision.reason), isError: true, errorCode: "permission_denied", details: { action: actionText(p), deniedBy: "policy", deniedBecause } };
  }
  const hookAsks = hooks?.ask !== undefined;
  if (decision.action === "allow" && !hookAsks) return { how: "allowed", p };
  // A `!` command the user typed: typing it answers a plain ask (USER_APPROVES); protected/dangerous asks still ask.
  if (p.typedByUser && decision.action === "ask" && USER_APPROVES.has(decision.source) && !hookAsks) return { how: "approved", p };
  const skippable = decision.action === "allow" || hookMayAnswer(decision);
  if (hooks?.allow && skippable) return { how: "allowed", p };
  if (o.hooks && hooks) {
    const shownReason = decision.action === "allow" ? hooks.ask || "a hook asked for confirmation" : decision.reason;
    const pr = await o.hooks.permissionRequest(hookedCall(p), shownReason, ctx.signal);
    if (pr.decision === "deny") return hookDenial(p, pr.reason, "PermissionRequest");
    if (pr.decision === "allow" && skippable && !pr.updatedInput) return { how: "allowed", p };
    if (pr.decision === "allow" && pr.updatedInput) {
      // New arguments: prepared and decided again; the hook's allow still only answers a skippable ask.
      const again = prepareCall(o, hooks.find, { id: p.id, name: p.tool.name, args: fromHookInput(pr.updatedInput, p) });
      if ("text" in again) return again;
      const d2 = o.policy.decide(again.request);
      if (d2.action === "deny") return { text: denialMessage(d2.reason), isError: true, errorCode: "permission_denied", details: { action: actionText(again), deniedBy: "policy", deniedBecause: d2.reasonText ? render(d2.reasonText) : d2.reason } };
      if (d2.action === "allow" || hookMayAnswer(d2)) return { how: "allowed", p: again };
      return authorize(o, again, ctx, { allow: false, find: hooks.find });
    }
  }
  const diff = await previewDiff(o, p);
  const outside = (p.tool.name === "exec" || p.tool.asExec !== undefined) && decision.source === "protected" && o.sandbox?.exec() !== undefined;
  // The person reads the reason in their language; the model only ever sees decision.reason (English).
  const shown = decision.reasonText ? render(decision.reasonText) : decision.reason;
  const asked = decision.action === "allow" ? t("hooks.askedBy", { reason: hooks?.ask || "-" }) : shown;
  const reason = outside ? t("perm.outsideSandbox", { reason: asked }) : asked;
  const outsideProject = p.command !== undefined ? pathsOutsideProject(p.command, { projectRoot: o.projectRoot, cwd: execCwd(o, p), userHome: o.userHome ?? homedir() }) : [];
  const answer = await ctx.requestApproval({ tool: p.tool.name, action: actionText(p), reason, ...(diff !== undefined ? { diff } : {}), ...(outsideProject.length ? { outsideProject } : {}), ...(decision.source === "protected" || decision.action === "allow" ? { noAlways: true } : {}) });
  if (answer === "always" || answer === "deny_always") await o.policy.remember(answer, p.request).catch(() => undefined);
  if (answer === "deny" || answer === "deny_always") {
    const interrupted = ctx.signal.aborted;
    const text = denialMessage(interrupted ? "the run was interrupted" : "approval was not given (the user declined, or there was no one to ask)");
    return { text, isError: true, errorCode: "permission_denied", details: { action: actionText(p), deniedBy: interrupted ? "interrupted" : "user" } };
  }
  return { how: outside ? "approved-protected" : "approved", p };
}

async function execute(o: ToolHostOptions, p: PreparedCall, ctx: ToolRunContext, how: Authorization): Promise<ToolRunResult> {
  if (ctx.signal.aborted) return { text: "[not executed: the run was interrupted]", isError: true, errorCode: "not_executed", details: { action: actionText(p) } };
  if (p.absPath && o.beforeFileChange) o.beforeFileChange(p.absPath);
  if (p.tool.name !== "exec" && !p.tool.asExec) return runTool(o, p, ctx);
  const sandbox = how === "approved-protected" ? undefined : o.sandbox?.exec();
  const first = await runExec(o, p, ctx, how, sandbox);
  if (!sandbox) return first;
  // Blocked by the sandbox: a person may let it run again outside (sandbox-rerun.ts); that run counts as approved.
  return offerRerunOutsideSandbox(first, actionText(p), ctx, () => runExec(o, p, ctx, "approved", undefined));
}

/** One run of an exec (inside `sandbox` when given) with the checkpoint hooks and, unapproved and unsandboxed, the config guard. */
async function runExec(o: ToolHostOptions, p: PreparedCall, ctx: ToolRunContext, how: Authorization, sandbox: ExecSandbox | undefined): Promise<ToolRunResult> {
  const token = await o.aroundExec?.before();
  try {
    // The guard puts files back before the checkpoint scan (after()), so snapshots see them as they are left. Inside
    // the sandbox the files it guards are mounted read-only, so it is not needed there.
    const guard = how === "allowed" && !sandbox ? o.configGuard : undefined;
    return await withConfigGuard(guard, () => runTool(o, p, ctx, sandbox));
  } finally {
    await o.aroundExec?.after(token);
  }
}

async function runTool(o: ToolHostOptions, p: PreparedCall, ctx: ToolRunContext, sandbox?: ExecSandbox): Promise<ToolRunResult> {
  const out = await p.tool.run(p.args, {
    projectRoot: o.projectRoot,
    cwd: o.cwd,
    paths: o.paths,
    signal: ctx.signal,
    callId: p.id,
    env: o.env,
    onUpdate: ctx.onUpdate,
    ...(sandbox ? { sandbox } : {}),
    ...(o.files ? { files: o.files } : {}),
    ...(o.saveOverflow ? { saveOverflow: (full: string) => o.saveOverflow!(p.id, full) } : {}),
  });
  const r: ToolRunResult = { text: out.text, isError: out.isError === true };
  if (out.errorCode) r.errorCode = out.errorCode;
  if (out.details) r.details = out.details;
  if (out.images?.length) r.images = out.images;
  return r;
}

/** Runs an exec no person approved with the protected-file guard around it; the result names what was put back. */
async function withConfigGuard(guard: ConfigGuard | undefined, run: () => Promise<ToolRunResult>): Promise<ToolRunResult> {
  const before = guard ? await guard.snapshot().catch(() => undefined) : undefined;
  let restored: string[] = [];
  let result: ToolRunResult;
  try {
    result = await run();
  } finally {
    if (guard && before) restored = await guard.restore(before).catch(() => []);
  }
  if (restored.length === 0) return result;
  const noted = withModelNote(
    result,
    `[chatcli put back protected files this command changed: ${restored.join(", ")}. Changing chatcli's settings or policy, git's config or hooks, or shell startup files needs the user's approval: name the file in the command so the user is asked.]`,
    "after",
  );
  return { ...noted, details: { ...noted.details, restoredProtected: restored } };
}

/** Where an exec runs: its `cwd` argument (relative to the session's working directory), else that directory. */
function execCwd(o: ToolHostOptions, p: PreparedCall): string {
  const cwd = p.args.cwd;
  return typeof cwd === "string" && cwd !== "" ? resolve(o.cwd, cwd) : o.cwd;
}

function actionText(p: PreparedCall): string {
  if (p.tool.approvalAction) return p.tool.approvalAction(p.args);
  if (p.command !== undefined) return p.command;
  if (p.path) return p.path;
  if (typeof p.args.url === "string") return p.args.url; // fetch: the address is what a person decides on
  return `${p.tool.name} ${safeHead(JSON.stringify(p.args), 200)}`;
}

/** The diff of what the call would write, from the tool's own preview; undefined when there is none. */
async function previewDiff(o: ToolHostOptions, p: PreparedCall): Promise<string | undefined> {
  const preview = await p.tool.preview(p.args, { projectRoot: o.projectRoot, paths: o.paths, ...(o.files ? { files: o.files } : {}) });
  if (!preview) return undefined;
  try {
    return unifiedDiff(preview.before, preview.after, { oldName: preview.path, newName: preview.path, maxChars: 8_000 }).text;
  } catch {
    return undefined;
  }
}
