/**
 * Hooks (and plugins) in a session: the moments each event fires, wired by src/cli/wire-session.ts.
 *   SessionStart      session.started (source startup | resume), after /clear (source clear) and after a compaction
 *                     (source compact); its context goes to the model with the next prompt. Project hooks/plugins
 *                     are trusted (or not) first.
 *   UserPromptSubmit  before a prompt enters the history (`beforeInput`): block = the prompt is dropped, the
 *                     reason shown to the user; context (JSON or plain stdout) is added to the prompt for the model.
 *   PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure   the tool host (`toolHooks`, tool-hooks.ts).
 *   Notification      an approval is asked (notification_type permission_prompt); never awaited.
 *   Stop              the agent finished answering (`onStop`): block = it goes on with the reasons as feedback.
 *   PreCompact        before a compaction (trigger manual | auto), awaited; cannot block.
 *   SessionEnd        at exit (`end`) and on /clear (reason clear).
 *   SubagentStart / SubagentStop   `subagentStart` / `subagentStop`, for the subagents issue to call.
 * Every failure is a warning notice plus a log line; the session goes on.
 */
import type { AgentEvent } from "../../protocol/events.ts";
import type { ApprovalRequest } from "../../agent/tool-host.ts";
import type { ApprovalAnswer } from "../../agent/run-deps.ts";
import type { ToolCallHooks } from "../../agent/tool-hooks.ts";
import { t } from "../../i18n/i18n.ts";
import { describeHook, type ConfiguredHook } from "./hook-config.ts";
import { HookDispatcher } from "./hook-dispatcher.ts";
import { claudePermissionMode, type HookEvent } from "./hook-events.ts";
import { failureForPeople, type CombinedOutcome, type HookOutcome } from "./hook-outcome.ts";
import { trustProject, trustState, type ProjectExtensions } from "./project-trust.ts";
import type { PluginHost } from "../plugins/plugin-host.ts";

export interface HooksRuntimeOptions {
  home: string;
  projectRoot: string;
  cwd: string;
  sessionId: string;
  env: Record<string, string | undefined>;
  userHooks: ConfiguredHook[];
  projectHooks: ConfiguredHook[];
  /** What the trust hash covers (the project's raw hooks block and plugin files), read lazily at start. */
  projectExtensions: () => ProjectExtensions;
  interactive: boolean;
  publish(e: AgentEvent): void;
  mode(): string;
  model(): string;
  transcriptPath(): string;
  /** Asks the person (the TUI's approval box); absent or headless: untrusted project hooks are skipped. */
  ask?: (req: ApprovalRequest) => Promise<ApprovalAnswer>;
  log(line: string): void;
  plugins?: PluginHost;
  /** Problems in the settings' hooks blocks, shown when the session starts. */
  warnings?: string[];
}

const TOOL_RESPONSE_CAP = 100_000;

export class HooksRuntime {
  readonly dispatcher: HookDispatcher;
  private projectAllowed = false;
  private started: Promise<void> | undefined;
  private pendingContext: string[] = [];

  constructor(private readonly o: HooksRuntimeOptions) {
    this.dispatcher = new HookDispatcher({
      hooks: () => this.activeHooks(),
      common: () => ({ session_id: o.sessionId, transcript_path: o.transcriptPath(), cwd: o.cwd, permission_mode: claudePermissionMode(o.mode()) }),
      projectRoot: o.projectRoot,
      env: o.env,
      onFailure: (x) => this.reportFailure(x),
      onSystemMessage: (text) => o.publish({ type: "notice", level: "info", text }),
      onRun: (x) => o.log(`hook ${x.hook.event} [${describeHook(x.hook)}]: ${x.status}${x.decision ? ` ${x.decision}` : ""}${x.failure ? ` (${x.failure})` : ""} in ${x.durationMs} ms`),
    });
  }

  activeHooks(): ConfiguredHook[] {
    return [...this.o.userHooks, ...(this.projectAllowed ? this.o.projectHooks : []), ...(this.o.plugins?.hookSpecs() ?? [])];
  }

  /**
   * Trust, plugins, then SessionStart. Runs once; the first prompt waits for it. It begins on the next macrotask,
   * after the caller's synchronous work (a UI subscribing right after session.started must see the trust
   * question); the TUI passes a delay so that importing plugins does not compete with its first frame.
   */
  start(source: "startup" | "resume", delayMs = 0): Promise<void> {
    this.started ??= new Promise<void>((resolve) => setTimeout(resolve, delayMs))
      .then(() => this.doStart(source))
      .catch((err: unknown) => this.o.log(`hooks start failed: ${(err as Error)?.message ?? String(err)}`));
    return this.started;
  }

  /** Settled once start-up (trust, plugins, SessionStart) is done; resolves at once when it has not begun. */
  ready(): Promise<void> {
    return this.started ?? Promise.resolve();
  }

  private async doStart(source: "startup" | "resume"): Promise<void> {
    for (const w of this.o.warnings ?? []) this.o.publish({ type: "notice", level: "warn", text: t("hooks.configWarning", { warning: w }) });
    await this.decideTrust();
    await this.o.plugins?.load({ project: this.projectAllowed });
    await this.sessionStart(source);
  }

  private async sessionStart(source: string): Promise<void> {
    const r = await this.dispatcher.fire("SessionStart", { source, model: this.o.model() });
    this.pendingContext.push(...r.contexts);
  }

  private async decideTrust(): Promise<void> {
    const x = this.o.projectExtensions();
    const state = trustState(this.o.home, this.o.projectRoot, x);
    if (state === "none") return;
    if (state === "trusted") {
      this.projectAllowed = true;
      return;
    }
    const listing = projectListing(this.o.projectHooks, x);
    if (!this.o.interactive || !this.o.ask) {
      this.o.publish({ type: "notice", level: "warn", text: t(state === "changed" ? "hooks.untrustedChangedSkipped" : "hooks.untrustedSkipped", { count: listing.length }) });
      return;
    }
    const answer = await this.o.ask({
      tool: "hooks",
      action: listing.join("\n"),
      reason: t(state === "changed" ? "hooks.trustChangedQuestion" : "hooks.trustQuestion", { project: this.o.projectRoot }),
    });
    if (answer === "always") trustProject(this.o.home, this.o.projectRoot, x);
    this.projectAllowed = answer === "once" || answer === "always";
    if (!this.projectAllowed) this.o.publish({ type: "notice", level: "warn", text: t("hooks.notTrusted") });
  }

  /** UserPromptSubmit (and SessionStart's pending context). */
  async beforeInput(prompt: string, signal: AbortSignal): Promise<{ block?: string; context?: string }> {
    await this.ready();
    const r = await this.dispatcher.fire("UserPromptSubmit", { prompt }, signal);
    if (r.decision === "deny") {
      const reason = r.reasons.join("; ") || t("hooks.noReason");
      this.o.publish({ type: "notice", level: "warn", text: t("hooks.promptBlocked", { reason }) });
      return { block: reason };
    }
    const contexts = [...this.pendingContext.splice(0), ...r.contexts];
    return contexts.length ? { context: contexts.join("\n\n") } : {};
  }

  /** Stop: a reason to keep going (fed to the model), or undefined to stop. */
  async onStop(stopHookActive: boolean, signal: AbortSignal): Promise<string | undefined> {
    const r = await this.dispatcher.fire("Stop", { stop_hook_active: stopHookActive }, signal);
    if (r.stop !== undefined || r.decision !== "deny") return undefined;
    return r.reasons.join("\n") || "A Stop hook asked you to continue.";
  }

  async preCompact(trigger: "manual" | "auto", instruction: string | undefined): Promise<void> {
    const r = await this.dispatcher.fire("PreCompact", { trigger, custom_instructions: instruction ?? "" });
    this.showBlockToUser("PreCompact", r);
  }

  /** After a compaction: SessionStart with source `compact`; its context goes with the next prompt. */
  async afterCompact(): Promise<void> {
    if (this.dispatcher.has("SessionStart")) await this.sessionStart("compact");
  }

  notify(message: string, type: string): void {
    void this.dispatcher.fire("Notification", { message, notification_type: type, title: "chatcli" }).then((r) => this.showBlockToUser("Notification", r));
  }

  async end(reason: "clear" | "logout" | "prompt_input_exit" | "other"): Promise<void> {
    if (!this.dispatcher.has("SessionEnd")) return;
    await this.ready();
    await this.dispatcher.fire("SessionEnd", { reason });
  }

  /** /clear: the old conversation ends, a new one starts. */
  async onClear(): Promise<void> {
    await this.end("clear");
    await this.sessionStart("clear");
  }

  /** For subagents: the contexts to put in the subagent's first message. */
  async subagentStart(agentId: string, agentType: string): Promise<string[]> {
    return (await this.dispatcher.fire("SubagentStart", { agent_id: agentId, agent_type: agentType })).contexts;
  }

  /** For subagents: a reason to keep the subagent going, or undefined to let it stop. */
  async subagentStop(agentId: string, agentType: string, stopHookActive: boolean, transcriptPath = ""): Promise<string | undefined> {
    const r = await this.dispatcher.fire("SubagentStop", { agent_id: agentId, agent_type: agentType, stop_hook_active: stopHookActive, agent_transcript_path: transcriptPath });
    if (r.stop !== undefined || r.decision !== "deny") return undefined;
    return r.reasons.join("\n") || "A SubagentStop hook asked you to continue.";
  }

  /** The tool host's side (tool-hooks.ts). */
  readonly toolHooks: ToolCallHooks = {
    before: async (call, signal) => {
      if (!this.dispatcher.has("PreToolUse")) return { contexts: [] };
      const r = await this.dispatcher.fire("PreToolUse", { tool_name: call.tool, tool_input: claudeInput(call.input, call.absPath), tool_use_id: call.id }, signal);
      return {
        ...(r.decision ? { decision: r.decision } : {}),
        ...(r.reasons.length ? { reason: r.reasons.join("; ") } : {}),
        ...(r.updatedInput ? { updatedInput: r.updatedInput } : {}),
        contexts: r.contexts.map((c) => `[PreToolUse hook context] ${c}`),
      };
    },
    permissionRequest: async (call, reason, signal) => {
      if (!this.dispatcher.has("PermissionRequest")) return {};
      const r = await this.dispatcher.fire("PermissionRequest", { tool_name: call.tool, tool_input: claudeInput(call.input, call.absPath), tool_use_id: call.id, reason, permission_suggestions: [] }, signal);
      if (r.decision === "deny") return { decision: "deny", reason: r.reasons.join("; ") };
      if (r.decision === "allow") return { decision: "allow", ...(r.updatedInput ? { updatedInput: r.updatedInput } : {}) };
      return {};
    },
    after: async (call, result, signal) => {
      const event: HookEvent = result.isError ? "PostToolUseFailure" : "PostToolUse";
      if (!this.dispatcher.has(event)) return [];
      const input = claudeInput(call.input, call.absPath);
      const fields = result.isError
        ? { tool_name: call.tool, tool_input: input, tool_use_id: call.id, error: cap(result.text), is_interrupt: signal.aborted }
        : { tool_name: call.tool, tool_input: input, tool_use_id: call.id, tool_response: { output: cap(result.text), ...(result.details ? { details: result.details } : {}) } };
      const r = await this.dispatcher.fire(event, fields, signal);
      const notes = r.decision === "deny" ? [`[${event} hook feedback] ${r.reasons.join("; ") || "the hook flagged this result"}`] : [];
      return [...notes, ...r.contexts.map((c) => `[${event} hook context] ${c}`)];
    },
  };

  private reportFailure(x: HookOutcome): void {
    if (x.hook.spec.type === "function") {
      this.o.plugins?.disable(x.hook.spec.plugin, x.failure ?? "");
      return;
    }
    this.o.publish({ type: "notice", level: "warn", text: t("hooks.failed", { event: x.hook.event, hook: describeHook(x.hook), failure: failureForPeople(x) }) });
  }

  /** Events with no model turn to feed: a block (exit 2) is shown to the user only. */
  private showBlockToUser(event: HookEvent, r: CombinedOutcome): void {
    if (r.decision === "deny" && r.reasons.length) this.o.publish({ type: "notice", level: "info", text: t("hooks.saidUser", { event, text: r.reasons.join("; ") }) });
  }
}

/** The arguments as Claude Code's hooks read them: file tools also carry the absolute `file_path`. */
function claudeInput(input: Record<string, unknown>, absPath: string | undefined): Record<string, unknown> {
  return absPath && input.file_path === undefined ? { ...input, file_path: absPath } : input;
}

function cap(text: string): string {
  return text.length > TOOL_RESPONSE_CAP ? `${text.slice(0, TOOL_RESPONSE_CAP)}...(truncated)` : text;
}

function projectListing(hooks: ConfiguredHook[], x: ProjectExtensions): string[] {
  return [...hooks.map((h) => `${h.event}${h.matcher ? ` [${h.matcher}]` : ""}: ${describeHook(h)}`), ...x.plugins.map((p) => `plugin: ${p.path}`)];
}
