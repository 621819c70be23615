/**
 * The permission policy of the agent core: decides allow / ask / deny for every tool call.
 *
 * Order (first hit wins):
 *   1. exec only: dangerous commands (dangerous.ts) → deny, whatever the rules or the mode (bypass included);
 *      a line that may be dangerous but cannot be told apart (dangerous-maybe.ts: `rm -rf $X`) is never allowed,
 *      whatever later step would allow it: it asks (bypass included);
 *   2. deny rules (any matching one; for exec it is enough that one command of the line, or a command hidden
 *      behind sudo/env/xargs/`bash -c`, matches);
 *   3. protected paths (protected.ts): write/edit of chatcli's or git's configuration, shell rc files, credential
 *      stores, system paths, or an exec whose words name one → ask in every mode (bypass and accept-edits included;
 *      plan mode still denies what it denies); an "always" answer to such a call is never persisted;
 *   3b. bypass mode → allow;
 *   4. plan mode → deny writes, edits and exec that is not read-only;
 *   5. safety-immune commands and paths (safety-immune.ts) → ask, even when an allow rule matches;
 *   6. the longest matching allow/ask rule (a tie goes to ask); for exec every simple command of the line must
 *      be allowed by a rule for the line to be allowed;
 *   7. defaults: read, search, tree, list, glob allow; write/edit ask (allow in accept-edits mode inside the
 *      project); exec allow only when read-only (read-only.ts), or, with an active `workspace-write` sandbox
 *      (options.sandbox), when it runs inside the project; a sandboxed exec asking for `network: true` asks
 *      (unless settings open the network); unknown tools ask.
 * Rules come from the user and project policy files (policy-file.ts), read once at creation and after remember().
 * The caller turns "ask" into an approval request; denials go back to the model with denialMessage().
 */
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import type { PermissionMode } from "../protocol/events.ts";
import { assertNever } from "../protocol/assert-never.ts";
import { parseShell } from "./shell/parse-shell.ts";
import type { ShellParseResult } from "./shell/shell-types.ts";
import { unwrapArgv, unwrapScript, unwrapSimple, type Unwrapped } from "./permission/command-view.ts";
import { findDangerous, findDangerousRough } from "./permission/dangerous.ts";
import { mayBeDangerous } from "./permission/dangerous-maybe.ts";
import { addRules, loadRules, projectPolicyPath, userPolicyPath, type PolicyRule, type RuleAction } from "./permission/policy-file.ts";
import { readOnlyVerdict } from "./permission/read-only.ts";
import { matchExecPattern, matchPathPattern, parsePattern } from "./permission/rule-match.ts";
import { findSafetyImmune, findSafetyImmuneRough, immunePath } from "./permission/safety-immune.ts";
import { findProtectedInExec, protectedPath, protectedWord, type ProtectedContext } from "./permission/protected.ts";
import { realpathLenient } from "./workspace.ts";
import { chatcliSecretPath } from "./permission/chatcli-secrets.ts";
import { commandOf, insideProject, pathOf, suggestPatterns, toolKind } from "./permission/request-view.ts";
import { msg, render, type Localized } from "../i18n/i18n.ts";

export { PolicyFileError, POLICY_FILE_NAME, type PolicyRule, type RuleAction } from "./permission/policy-file.ts";

export type PermissionAction = "allow" | "ask" | "deny";

/** Which step of the order decided. */
export type DecisionSource = "dangerous" | "rule" | "protected" | "mode" | "safety" | "default" | "sandbox";

export interface PermissionRequest {
  tool: string;
  args: Record<string, unknown>;
  /** Resolved absolute path, for file tools. Falls back to args.path / file / file_path / dir. */
  path?: string;
  /** The shell command, for exec. Falls back to args.command / cmd. */
  command?: string;
}

export interface PermissionDecision {
  action: PermissionAction;
  /** English: what the model is told (denialMessage) and what the log says. */
  reason: string;
  /** The same reason for a person, in their language (the approval box): `render(reasonText)`. */
  reasonText?: Localized;
  /** The pattern of the rule that decided, if one did. */
  rule?: string;
  source: DecisionSource;
}

export interface PermissionPolicyOptions {
  /** chatcli's home directory (`~/.chatcli`, or CHATCLI_HOME): holds the user policy file. */
  homeDir: string;
  projectRoot: string;
  mode?: PermissionMode;
  /** The user's home directory, for `~` in rules and in dangerous-path checks. Default: os.homedir(). */
  userHome?: string;
  /**
   * Extra dangerous exec patterns (rule syntax without the `exec ` prefix, e.g. `terraform destroy*`), blocked like
   * the built-in list; the caller reads them from CHATCLI_AGENT_DENYLIST.
   */
  denylist?: string[];
  /**
   * The OS sandbox exec runs in (src/sandbox/), read live (its probe finishes after the policy is created).
   * Absent = no sandbox: decisions are exactly those of a policy without one.
   */
  sandbox?: PolicySandbox;
}

export interface PolicySandbox {
  readonly mode: "workspace-write" | "read-only" | "off";
  /** Commands really run contained now (the probe succeeded and the mode is not off). */
  readonly active: boolean;
  /** Settings `sandbox.network`: sandboxed commands have the network anyway. */
  readonly network: boolean;
}

export interface PermissionPolicy {
  readonly mode: PermissionMode;
  decide(req: PermissionRequest): PermissionDecision;
  /**
   * Persists the answer to an approval as rules in the project policy file (atomic write) and reloads.
   * "always" adds allow rules, "deny_always" deny rules; returns the patterns written. An "always" for a call on a
   * protected path writes nothing (it counted for that call only).
   */
  remember(decision: "always" | "deny_always", req: PermissionRequest): Promise<string[]>;
  /** The patterns remember() would write for this request (for the approval prompt). */
  suggestPatterns(req: PermissionRequest): string[];
  setMode(mode: PermissionMode): void;
  /** Re-reads both policy files. Throws PolicyFileError. */
  reload(): void;
  readonly rules: ReadonlyArray<PolicyRule>;
}

/** Throws PolicyFileError when a policy file is invalid. */
export function createPermissionPolicy(opts: PermissionPolicyOptions): PermissionPolicy {
  const userFile = userPolicyPath(opts.homeDir);
  const projectFile = projectPolicyPath(opts.projectRoot);
  const userHome = opts.userHome ?? homedir();
  const projectRoot = resolve(opts.projectRoot);
  let mode: PermissionMode = opts.mode ?? "default";
  let rules = loadRules(userFile, projectFile);

  const denylist = (opts.denylist ?? []).map((p) => p.trim()).filter(Boolean);
  const ctx = (): Ctx => ({ rules, mode, projectRoot, userHome, denylist, chatcliHome: resolve(opts.homeDir), ...(opts.sandbox ? { sandbox: opts.sandbox } : {}) });
  const policy: PermissionPolicy = {
    get mode() {
      return mode;
    },
    get rules() {
      return rules;
    },
    decide: (req) => decide(req, ctx()),
    suggestPatterns: (req) => suggestPatterns(req, ctx()),
    async remember(decision, req) {
      if (decision === "always" && decide(req, ctx()).source === "protected") return [];
      const patterns = suggestPatterns(req, ctx());
      const action: RuleAction = decision === "always" ? "allow" : "deny";
      addRules(projectFile, patterns.map((pattern) => ({ pattern, action })));
      rules = loadRules(userFile, projectFile);
      return patterns;
    },
    setMode(m) {
      mode = m;
    },
    reload() {
      rules = loadRules(userFile, projectFile);
    },
  };
  return policy;
}

const why = msg;

/** A decision whose reason is rendered twice: English for the model and the log, the person's language for the UI. */
function decision(action: PermissionAction, reasonText: Localized, source: DecisionSource, rule?: string): PermissionDecision {
  return { action, reason: render(reasonText, "en"), reasonText, source, ...(rule !== undefined ? { rule } : {}) };
}

/** The tool result text for a denied call: tells the model not to retry it. */
export function denialMessage(reason: string): string {
  return `Permission denied: ${reason}. This action was denied by the user or the permission policy. Do not retry the same call; continue with another approach or ask the user how to proceed.`;
}

interface Ctx extends ProtectedContext {
  rules: ReadonlyArray<PolicyRule>;
  mode: PermissionMode;
  projectRoot: string;
  userHome: string;
  denylist: string[];
  sandbox?: PolicySandbox;
}

/** Never throws: an internal failure denies (fail closed) with the error in the reason. */
function decide(req: PermissionRequest, ctx: Ctx): PermissionDecision {
  try {
    return decideUnsafe(req, ctx);
  } catch (e) {
    return decision("deny", why("perm.checkFailed", { error: e instanceof Error ? e.message : String(e) }), "default");
  }
}

function decideUnsafe(req: PermissionRequest, ctx: Ctx): PermissionDecision {
  const kind = toolKind(req.tool);
  switch (kind) {
    case "exec":
      return decideExec(req, ctx);
    case "read":
    case "write":
      return decideFile(req, kind, ctx);
    case "other":
      return decideOther(req, ctx);
    default:
      return assertNever(kind, "tool kind");
  }
}

/** A line the dangerous check cannot clear (dangerous-maybe.ts) is never allowed: allow becomes ask, in every mode. */
function decideExec(req: PermissionRequest, ctx: Ctx): PermissionDecision {
  const command = commandOf(req);
  if (command === undefined || command.trim() === "") return decision("ask", why("perm.execNoCommand"), "default");
  const parse = parseShell(command);
  const d = decideParsedExec(req, command, parse, ctx);
  if (d.action !== "allow") return d;
  const maybe = mayBeDangerous(parse, ctx.userHome);
  if (!maybe) return d;
  return decision("ask", why("perm.maybeDangerous", { detail: maybe }), "dangerous");
}

function decideParsedExec(req: PermissionRequest, command: string, parse: ShellParseResult, ctx: Ctx): PermissionDecision {
  const danger = parse.ok ? findDangerous(parse.script, { userHome: ctx.userHome }) : findDangerousRough(parse.rough, { userHome: ctx.userHome });
  if (danger) {
    return decision("deny", why("perm.dangerous", { detail: danger }), "dangerous");
  }
  const candidates = execCandidates(parse);
  const listed = ctx.denylist.find((p) => candidates.some((words) => matchExecPattern(p, words)));
  if (listed !== undefined) {
    return decision("deny", why("perm.denylisted", { pattern: listed }), "dangerous");
  }
  const deny = longestRule(ctx.rules, "deny", (r) => candidates.some((words) => execRuleMatches(r, words)));
  if (deny) return decision("deny", why("perm.deniedByRule", { rule: deny.pattern }), "rule", deny.pattern);
  const ro = readOnlyVerdict(parse, command);
  const planDenial = (r: { reason: Localized }): PermissionDecision => decision("deny", why("perm.planExec", { detail: r.reason }), "mode");
  const prot = findProtectedInExec(parse, { ...ctx, readOnly: ro.readOnly }) ?? protectedCwd(req, ctx);
  if (prot) {
    if (ctx.mode === "plan" && !ro.readOnly) return planDenial(ro);
    return decision("ask", why("perm.protectedExec", { what: prot }), "protected");
  }
  if (ctx.mode === "bypass") return decision("allow", why("perm.bypass"), "mode");
  if (ctx.mode === "plan" && !ro.readOnly) return planDenial(ro);
  const immune = parse.ok ? findSafetyImmune(parse.script) : findSafetyImmuneRough(parse.rough);
  if (immune) return decision("ask", why("perm.safetyExec", { what: immune }), "safety");
  if (!parse.ok) return decision("ask", why("perm.unparsed", { error: parse.error }), "default");
  const perCommand = parse.script.commands.map((c) => bestRule(ctx.rules, (r) => execRuleMatches(r, c.argv) && c.assignments.length === 0));
  const ask = perCommand.find((r) => r?.action === "ask");
  if (ask) return decision("ask", why("perm.ruleAsks", { rule: ask.pattern }), "rule", ask.pattern);
  if (perCommand.length > 0 && perCommand.every((r) => r?.action === "allow") && !hasFileRedirect(parse)) {
    const rule = perCommand.reduce((a, b) => ((b?.pattern.length ?? 0) > (a?.pattern.length ?? 0) ? b : a));
    return decision("allow", why("perm.allowedByRule", { rule: rule?.pattern ?? "" }), "rule", rule?.pattern);
  }
  const network = sandboxNetworkAsk(req, ctx);
  if (network) return network;
  if (ro.readOnly) return decision("allow", why("perm.readOnlyCommand"), "default");
  if (sandboxAllows(req, ctx)) return decision("allow", why("perm.inSandbox"), "sandbox");
  return decision("ask", why("perm.notReadOnly", { detail: ro.reason }), "default");
}

/** exec's `cwd` argument: a command run inside `.git/hooks` writes there without naming it. */
function protectedCwd(req: PermissionRequest, ctx: Ctx): Localized | undefined {
  const cwd = req.args.cwd;
  if (typeof cwd !== "string" || cwd === "") return undefined;
  const byPath = protectedPath(realpathLenient(isAbsolute(cwd) ? resolve(cwd) : resolve(ctx.projectRoot, cwd)), ctx);
  return byPath ? msg("perm.runsIn", { what: byPath }) : protectedWord(cwd, ctx);
}

function decideFile(req: PermissionRequest, kind: "read" | "write", ctx: Ctx): PermissionDecision {
  const path = pathOf(req, ctx.projectRoot);
  const matches = (r: PolicyRule) => fileRuleMatches(r, req.tool, path, ctx);
  const deny = longestRule(ctx.rules, "deny", matches);
  if (deny) return decision("deny", why("perm.deniedByRule", { rule: deny.pattern }), "rule", deny.pattern);
  const secret = path ? chatcliSecretPath(path, ctx.chatcliHome) : undefined;
  if (secret) return decision("deny", why("perm.chatcliSecret", { tool: req.tool, what: secret }), "protected");
  const prot = kind === "write" && path ? protectedPath(path, ctx) : undefined;
  if (prot && ctx.mode !== "plan") return decision("ask", why("perm.protectedFile", { tool: req.tool, what: prot }), "protected");
  if (ctx.mode === "bypass") return decision("allow", why("perm.bypass"), "mode");
  if (ctx.mode === "plan" && kind === "write") return decision("deny", why("perm.planFile", { tool: req.tool }), "mode");
  const immune = path ? immunePath(path) : undefined;
  if (immune) return decision("ask", why("perm.safetyFile", { tool: req.tool, what: immune }), "safety");
  const rule = bestRule(ctx.rules, matches);
  if (rule) return decision(rule.action, why(rule.action === "allow" ? "perm.allowedByRule" : "perm.askedByRule", { rule: rule.pattern }), "rule", rule.pattern);
  if (kind === "read") return decision("allow", why("perm.readTool", { tool: req.tool }), "default");
  if (ctx.mode === "accept-edits" && path && insideProject(path, ctx.projectRoot)) return decision("allow", why("perm.acceptEdits"), "mode");
  return decision("ask", why("perm.writeTool", { tool: req.tool }), "default");
}

const K8S_READ_TOOLS: ReadonlySet<string> = new Set(["k8s_get", "k8s_logs", "k8s_events", "k8s_describe"]);

function decideOther(req: PermissionRequest, ctx: Ctx): PermissionDecision {
  // `*` in a rule's tool name is a glob (`mcp__github__*`: every tool of that MCP server).
  const matches = (r: PolicyRule) => toolNameMatches(parsePattern(r.pattern).tool, req.tool) && parsePattern(r.pattern).arg === undefined;
  const deny = longestRule(ctx.rules, "deny", matches);
  if (deny) return decision("deny", why("perm.deniedByRule", { rule: deny.pattern }), "rule", deny.pattern);
  if (ctx.mode === "bypass") return decision("allow", why("perm.bypass"), "mode");
  // The todo list lives in the session only (no file, no command): nothing to ask about, in every mode.
  if (req.tool === "todo") return decision("allow", why("perm.todoSessionOnly"), "default");
  const rule = bestRule(ctx.rules, matches);
  if (rule) return decision(rule.action, why(rule.action === "allow" ? "perm.allowedByRule" : "perm.askedByRule", { rule: rule.pattern }), "rule", rule.pattern);
  // The watch's cluster reads (issue 23) change nothing and never read Secrets: allowed in every mode, plan included.
  if (K8S_READ_TOOLS.has(req.tool)) return decision("allow", why("perm.k8sReadOnly"), "default");
  return decision("ask", why("perm.noRule", { tool: req.tool }), "default");
}

function toolNameMatches(pattern: string, tool: string): boolean {
  if (!pattern.includes("*")) return pattern === tool;
  return new RegExp(`^${pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\/]/g, "\\$&")).join(".*")}$`).test(tool);
}

/** Every command a line runs, including those behind wrappers and inside `bash -c`, for deny rules. */
function execCandidates(parse: ShellParseResult): string[][] {
  const u: Unwrapped = { views: [], scripts: [], rough: [] };
  const out: string[][] = [];
  const collect = (acc: Unwrapped, depth: number) => {
    for (const v of acc.views) out.push([v.name, ...v.args]);
    for (const r of acc.rough) out.push(r);
    if (depth > 4) return;
    for (const s of acc.scripts) {
      for (const c of s.commands) {
        out.push(c.argv);
        collect(unwrapSimple(c), depth + 1);
      }
    }
  };
  if (parse.ok) {
    const unwrapped = unwrapScript(parse.script);
    parse.script.commands.forEach((c, i) => {
      out.push(c.argv);
      const w = unwrapped[i];
      if (w) collect(w, 0);
    });
  } else {
    for (const argv of parse.rough) unwrapArgv(argv, [], 0, u);
    out.push(...parse.rough);
    collect(u, 0);
  }
  return out.filter((w) => w.length > 0);
}

function execRuleMatches(rule: PolicyRule, words: string[]): boolean {
  const p = parsePattern(rule.pattern);
  if (p.tool !== "exec") return false;
  return p.arg === undefined || matchExecPattern(p.arg, words);
}

function fileRuleMatches(rule: PolicyRule, tool: string, path: string | undefined, ctx: Ctx): boolean {
  const p = parsePattern(rule.pattern);
  if (p.tool !== tool) return false;
  if (p.arg === undefined) return true;
  return path !== undefined && matchPathPattern(p.arg, path, ctx.projectRoot, ctx.userHome);
}

function hasFileRedirect(parse: ShellParseResult): boolean {
  if (!parse.ok) return true;
  return parse.script.commands.some((c) =>
    c.redirects.some((r) => r.op !== "<" && r.op !== "<<" && r.op !== "<<-" && r.op !== "<<<" && !/^(\d+|-)$/.test(r.target.value) && r.target.value !== "/dev/null"),
  );
}

function longestRule(rules: ReadonlyArray<PolicyRule>, action: RuleAction, match: (r: PolicyRule) => boolean): PolicyRule | undefined {
  return rules.filter((r) => r.action === action && match(r)).sort((a, b) => b.pattern.length - a.pattern.length)[0];
}

/** Longest matching allow/ask rule; on equal length ask wins. */
function bestRule(rules: ReadonlyArray<PolicyRule>, match: (r: PolicyRule) => boolean): PolicyRule | undefined {
  return rules
    .filter((r) => r.action !== "deny" && match(r))
    .sort((a, b) => b.pattern.length - a.pattern.length || (a.action === "ask" ? -1 : 0) - (b.action === "ask" ? -1 : 0))[0];
}

/** A sandboxed command that asks for the network (`network: true`) is asked about, unless settings open it anyway. */
function sandboxNetworkAsk(req: PermissionRequest, ctx: Ctx): PermissionDecision | undefined {
  const sb = ctx.sandbox;
  if (!sb?.active || sb.network || req.args.network !== true) return undefined;
  return decision("ask", why("perm.network"), "sandbox");
}

/** workspace-write with a working sandbox: a command whose working directory is inside the project runs without asking. */
function sandboxAllows(req: PermissionRequest, ctx: Ctx): boolean {
  const sb = ctx.sandbox;
  if (!sb?.active || sb.mode !== "workspace-write") return false;
  const cwd = req.args.cwd ?? req.args.dir ?? req.args.workdir;
  if (cwd !== undefined && typeof cwd !== "string") return false;
  // Relative to the project root: at least as strict as the session cwd, which is inside it.
  const dir = cwd === undefined || cwd === "" ? ctx.projectRoot : isAbsolute(cwd) ? resolve(cwd) : resolve(ctx.projectRoot, cwd);
  return insideProject(dir, ctx.projectRoot);
}
