/**
 * Builds a Session for the chosen provider/model with the system prompt, tools, permission policy and the
 * tool-result pipeline. The one place (with main.ts) that knows every layer. `dispose()` must run at exit
 * (it removes the session workspace unless CHATCLI_AGENT_KEEP_TMPDIR=true).
 *
 * The Session's history is what happened (tool results as the tools returned them); the result pipeline
 * (pairing → budget → microcompact) is applied to each outgoing request only, so the session file is only
 * appended to. Only a compaction changes the history itself. Full outputs the previews point at live in the
 * recorded session's own directory (`<home>/sessions/<id>/tool-results/`), so a resumed session finds them.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { Session, type SessionOptions } from "../agent/session/session.ts";
import { createToolHost } from "../agent/tool-host-impl.ts";
import { builtinTools } from "../tool/registry.ts";
import { createFetchTool } from "../tool/web/fetch-tool.ts";
import { sanitizeToolArgs } from "../agent/arg-sanitizer.ts";
import type { Message } from "../protocol/message.ts";
import { createPathPolicy, parseExtraPaths } from "../tool/workspace.ts";
import { UsageTracker } from "../llm/usage.ts";
import { Logger } from "../util/logger.ts";
import { CheckpointStore, checkpointDir, checkpointLimitsFromEnv } from "../agent/checkpoints.ts";
import { switchModel } from "./interactive-commands.ts";
import { SessionStore } from "../store/session-store.ts";
import { createRedactor } from "../store/redact.ts";
import { SessionRecorder, attachRecorder } from "../store/session-recorder.ts";
import { ContextManager } from "../agent/contexts.ts";
import { expandInputWithImages } from "../agent/images/expand-input.ts";
import { contextWindowFor } from "./resolve-model.ts";
import { assumedWindowNote, createContextManager } from "../agent/compaction/context-manager.ts";
import { createModelSummarizer } from "../agent/compaction/model-summarizer.ts";
import { createArchiver } from "../agent/compaction/archive.ts";
import { estimateSystemTokens, estimateToolSpecTokens } from "../agent/compaction/tokens.ts";
import { getProviderDefinition } from "../llm/registry.ts";
import { createExtensions } from "../ext/hooks/wire-extensions.ts";
import { TodoState } from "../agent/todo/todo-state.ts";
import { createBudgetGuard } from "../llm/budget.ts";
import { createShellPassthrough } from "../agent/shell-passthrough/run-shell.ts";
import { createInitGuard } from "../agent/init/init-guard.ts";
import { storedLoginProvider } from "../mcp/oauth/oauth-provider.ts";
import { ExtRuntime } from "../ext/ext-runtime.ts";
import { createMcpRuntime } from "../mcp/runtime/create-runtime.ts";
import { t } from "../i18n/i18n.ts";
import { expandMcpMentions, mcpMentions } from "../mcp/resources/mentions.ts";
import { VERSION } from "../version.ts";
import { wireMemory } from "./wire-memory.ts";
import type { WireOptions, WiredSession } from "./wire-types.ts";
import { earlyExitFromEnv, maxTurnsFromEnv, newSessionId, scrubbedLogger, windowIsAssumed, wireSummaries } from "./wire-env.ts";
import { wireSafety } from "./wire-safety.ts";
import { createOutgoing } from "./wire-outgoing.ts";
import { createPrompts, textProtocolFor } from "./wire-prompt.ts";
import { wireSubagents } from "./wire-subagents.ts";
import { createK8sSlot, mergeDynamicTools } from "./wire-k8s.ts";

export type { WireOptions, WiredSession } from "./wire-types.ts";
export { earlyExitFromEnv, maxTurnsFromEnv } from "./wire-env.ts";

export function wireSession(o: WireOptions): WiredSession {
  const { cfg, resolved } = o;
  const contextWindow = contextWindowFor(cfg, resolved.info, resolved.providerId);
  const { workspace, childEnv, sandbox, paths, policy, policyFor, configGuardFor } = wireSafety(cfg, o.permissionMode);
  // Overflow files go to the recorded session's directory (set by the recorder below, and again when it moves
  // to another session); without recording, to the temp workspace (deleted at exit, like the session).
  const outgoing = createOutgoing(cfg, workspace, () => session?.contextWindow ?? contextWindow);
  const { outgoingOf, toolResultsDir } = outgoing;
  // Collaborators that publish through the session reach it once it exists (below); none publishes before.
  let session: Session | undefined;
  // MCP warnings from before the session exists (invalid entries) are kept for the caller to show.
  const mcpWarnings: string[] = [];
  const mcp = createMcpRuntime({
    home: cfg.home,
    projectRoot: cfg.projectRoot,
    cwd: cfg.cwd,
    userServers: cfg.settings.mcpServers,
    userFile: cfg.files.user,
    configFiles: o.mcp?.configFiles ?? [],
    strict: o.mcp?.strict ?? false,
    env: cfg.env,
    childEnv,
    clientVersion: VERSION,
    binding: () => ({ providerId: session?.model.providerId ?? resolved.providerId, nativeTools: session?.model.nativeTools ?? resolved.info?.supportsTools ?? false, contextWindow: session?.contextWindow ?? contextWindow }),
    warn: (text) => (session ? session.publish({ type: "notice", level: "warn", text: t("mcp.warning", { message: text }) }) : mcpWarnings.push(t("mcp.warning", { message: text }))),
    scrub: createRedactor(cfg.env),
    offline: cfg.offline,
    authProvider: storedLoginProvider(cfg.home),
  });
  const k8s = createK8sSlot({ settings: cfg.settings.k8s, env: cfg.env, home: cfg.env.HOME || homedir(), publish: (e) => session?.publish(e) });
  const sessionId = o.resume?.meta.id ?? newSessionId();
  // Hooks and plugins (issue 19): nothing is built (two stats) when none are configured.
  const ext = createExtensions({
    cfg,
    sessionId,
    interactive: o.interactive,
    publish: (e) => session?.publish(e),
    mode: () => session?.mode ?? o.permissionMode,
    model: () => session?.model.model ?? resolved.model,
    transcriptPath: () => recorder?.file ?? "",
    ask: (req) => session?.requestApproval(req) ?? Promise.resolve("deny"),
    log: (line) => (compactionLog ??= scrubbedLogger(cfg)).info(line),
  });
  const cp = CheckpointStore.load({ sessionId, dir: checkpointDir(cfg.home, sessionId), projectRoot: cfg.projectRoot, ...checkpointLimitsFromEnv(cfg.env), publish: (e) => session?.publish(e), redact: createRedactor(cfg.env) });
  const initGuard = createInitGuard(policy, { projectRoot: cfg.projectRoot });
  // Skills, personas, custom commands (issue 18): discovered asynchronously, awaited before the first request.
  const skills = new ExtRuntime({
    roots: { projectRoot: cfg.projectRoot, chatcliHome: cfg.home, ...(cfg.env.HOME ? { userHome: cfg.env.HOME } : {}) },
    addReadPath: (dir) => paths.addReadPath(dir),
  });
  const toolList = () => [...builtinTools(), ...(cfg.webFetch.enabled ? [createFetchTool({ allowPrivateNetworks: cfg.webFetch.allowPrivateNetworks })] : [])];
  const baseTools = createToolHost({
    tools: toolList(),
    projectRoot: cfg.projectRoot,
    cwd: cfg.cwd,
    paths,
    policy: initGuard.policy,
    env: childEnv,
    sandbox,
    ...(cfg.env.HOME ? { userHome: cfg.env.HOME } : {}),
    saveOverflow: (callId: string, text: string) => outgoing.saveOverflow(callId, text),
    beforeFileChange: (p) => cp.beforeFileChange(p),
    aroundExec: { before: () => cp.aroundExec.before(), after: (t) => cp.aroundExec.after(t) },
    configGuard: configGuardFor(cfg.projectRoot),
    ...(ext ? { hooks: ext.runtime.toolHooks, extraTools: () => ext.plugins.tools() } : {}),
    dynamicTools: mergeDynamicTools(mcp, k8s.dynamicTools),
    ...(o.files ? { files: o.files } : {}),
  });
  // Subagents (issue 20): the `agent` tool; children use baseTools (the same policy and sandbox), not the persona gate.
  const subagents = wireSubagents({
    cfg,
    tools: baseTools,
    skills,
    ext,
    get usage() {
      return usage;
    },
    binding: () => session?.model ?? opts.binding,
    systemPrompt: (role, o) => systemPromptFor(role, o),
    textProtocol: () => opts.turn.textProtocol,
    sanitizeNativeArgs: (raw) => sanitizeToolArgs(raw, "native"),
    requestApproval: (req, signal) => session?.requestApproval(req, signal) ?? Promise.resolve("deny"),
    publish: (e) => session?.publish(e),
    toolResultsDir: () => toolResultsDir(),
    ...(workspace ? { worktreeDir: join(workspace.scratchDir, "worktrees") } : {}),
    ...(o.resume ? { recorded: o.resume.viewEvents } : {}),
    // `isolation: worktree`: the same tools, rules (the session's mode now) and sandbox, rooted in the worktree.
    toolsFor: (root) =>
      createToolHost({
        tools: toolList(),
        projectRoot: root,
        cwd: root,
        paths: createPathPolicy({ projectRoot: root, extraReadPaths: [cfg.projectRoot, ...parseExtraPaths(cfg.env.CHATCLI_AGENT_EXTRA_READ_PATHS)] }),
        policy: policyFor(root, policy.mode),
        env: childEnv,
        sandbox,
        ...(cfg.env.HOME ? { userHome: cfg.env.HOME } : {}),
        configGuard: configGuardFor(root),
        ...(ext ? { hooks: ext.runtime.toolHooks } : {}),
        ...(mcp ? { dynamicTools: mcp } : {}),
      }),
  });
  const tools = skills.wrapTools(subagents.wrap(baseTools));
  const usage = new UsageTracker();
  const todos = TodoState.fromEvents(o.resume?.viewEvents ?? []);
  const budget = cfg.maxBudgetUsd !== undefined ? createBudgetGuard({ limitUsd: cfg.maxBudgetUsd, usage, inputTokens: (r) => context.requestTokens(r.messages) }) : undefined;
  // Context management (issue 8): compaction before model calls, /compact, overflow recovery. Summaries point
  // the model at the archived originals under <home>/compaction/, so the read tool may open that directory.
  const compactionDir = join(cfg.home, "compaction");
  paths.addReadPath(compactionDir);
  let archive: ((m: Message[]) => string | undefined) | undefined;
  let compactionLog: Logger | undefined;
  const context = createContextManager({
    contextWindow: () => session?.contextWindow ?? contextWindow,
    overheadTokens: () => {
      const specs = tools.specs();
      const native = (session?.model.nativeTools ?? resolved.info?.supportsTools ?? false) && specs.length > 0;
      // + the per-request task reminder (≤ 300 chars of task plus a fixed sentence).
      return estimateSystemTokens(systemPrompt({ nativeTools: native, tools: specs })) + (native ? estimateToolSpecTokens(specs) : 0) + 150;
    },
    agent: () => tools.specs().length > 0,
    summarize: createModelSummarizer({
      provider: () => session?.model.provider ?? resolved.provider,
      model: () => session?.model.model ?? resolved.model,
      contextWindow: () => session?.contextWindow ?? contextWindow,
      onUsage: (u, model) => usage.record("compaction", session?.model.providerId ?? resolved.providerId, model, u),
    }),
    archive: (m) => (archive ??= createArchiver(compactionDir, { sessionId, redact: createRedactor(cfg.env) }))(m),
    ...(windowIsAssumed(cfg, resolved) ? { windowNote: assumedWindowNote(resolved.model, contextWindow) } : {}),
    // The screen gets one line per compaction; what each level did (and why a summary failed) goes to the log.
    log: (line) => (compactionLog ??= scrubbedLogger(cfg)).info(line),
    ...(ext ? { beforeCompact: (trigger: "auto" | "manual", instruction?: string) => ext.runtime.preCompact(trigger, instruction), afterCompact: () => ext.runtime.afterCompact() } : {}),
  });
  const store = o.store ?? new SessionStore({ home: cfg.home, env: cfg.env });
  const contexts = new ContextManager({ dir: join(cfg.home, "contexts"), projectRoot: cfg.projectRoot, paths });
  const summaries = o.summaries === false ? undefined : wireSummaries(cfg, usage, (e) => session?.publish(e));
  const recorder = o.record === false ? undefined : new SessionRecorder({
    store,
    id: sessionId,
    existing: o.resume !== undefined,
    ...(o.resume ? { entries: o.resume } : {}),
    onSessionId: (id) => {
      outgoing.setSessionResultsDir(store.toolResultsDirFor(id));
      paths.addReadPath(store.toolResultsDirFor(id));
    },
    meta: { cwd: cfg.cwd, projectRoot: cfg.projectRoot, provider: resolved.providerId, model: resolved.model },
    onError: (m) => session?.publish({ type: "notice", level: "warn", text: m }),
  });
  if (o.resume) {
    // A fork's history may name its parent's saved outputs (the fork has copies, but the text names the parent's).
    // (Only a plain id: the file's text must never widen the allowlist beyond the sessions dir.)
    const parent = o.resume.meta.forkedFrom;
    if (parent && /^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(parent)) paths.addReadPath(store.toolResultsDirFor(parent));
    // The pipeline's first pass over a resumed history finds every preview already made: done here, it is not
    // reported as news on the first request.
    if (recorder) outgoingOf(o.resume.history);
  }
  const memory = wireMemory({ cfg, redact: createRedactor(cfg.env), sessionId: () => recorder?.id ?? sessionId, publish: (e) => session?.publish(e), log: (m) => (compactionLog ??= scrubbedLogger(cfg)).info(m) });
  const { systemPrompt, systemPromptFor } = createPrompts(cfg, {
    role: () => skills.rolePrompt(),
    contexts: () => contexts.parts(),
    extra: () => {
      const watch = k8s.promptPart();
      return watch ? [...skills.systemParts(), { text: watch }] : skills.systemParts();
    },
    ...(memory ? { memory: () => memory.systemPart(session?.messages ?? o.resume?.history ?? [], session?.contextWindow ?? contextWindow) } : {}),
  });
  const opts: SessionOptions = {
    sessionId,
    cwd: cfg.cwd,
    ...(o.resume ? { initialHistory: o.resume.history } : {}),
    binding: { providerId: resolved.providerId, model: resolved.model, provider: resolved.provider, nativeTools: resolved.info?.supportsTools ?? false, contextWindow, images: resolved.info?.supportsImages ?? getProviderDefinition(resolved.providerId)?.capabilities.images ?? true },
    permissionMode: o.permissionMode,
    turn: {
      systemPrompt,
      tools,
      textProtocol: textProtocolFor(cfg),
      sanitizeNativeArgs: (raw) => sanitizeToolArgs(raw, "native"),
      pipeline: async (history, ctx) => {
        // MCP servers still starting are waited for here (each up to its start timeout), never at the prompt.
        if (mcp) await mcp.ready(ctx.signal);
        // settings `k8s.watch`: at the latest here, so the first request already offers the k8s_* tools.
        if (k8s.configured) await k8s.start();
        await skills.beforeRequest(history);
        const r = outgoingOf(history);
        if (r.summary) ctx.emit({ type: "pipeline", stage: r.microcompact.truncated || r.microcompact.summarized ? "microcompact" : r.budget.truncatedPerResult + r.budget.truncatedPerTurn > 0 ? "budget" : "pairing", summary: r.summary });
        const compacted = await context.beforeModelCall(r.messages, ctx);
        if (compacted === r.messages) return { persistent: history, outgoing: r.messages };
        // A compaction changes the history: what it kept goes back to the form it happened in (the pipeline
        // cuts it again per request); only what compaction itself rewrote (summaries, trims) is new.
        return { persistent: compacted.map(r.sourceOf), outgoing: compacted };
      },
      anchorNote: () => todos.reminder(),
      ...(budget ? { checkRequest: (r) => budget.check(r) } : {}),
      // Read per run: an active persona's maxTurns (issue 18) can only lower it.
      get maxTurns() {
        return Math.min(o.maxTurns ?? maxTurnsFromEnv(cfg.env), skills.persona?.maxTurns ?? Infinity);
      },
      earlyExitTurns: earlyExitFromEnv(cfg.env),
      transformInput: async (text) => {
        memory?.onUserText(text);
        const r = await expandInputWithImages(text, { projectRoot: cfg.projectRoot, paths });
        // `@server:uri` is an MCP resource (resolveInput attached it), not a missing file.
        const mcpTokens = mcp ? mcpMentions(text, new Set(mcp.servers.map((x) => x.name))).map((m) => m.token) : [];
        return mcpTokens.length ? { ...r, notices: (r.notices ?? []).filter((n) => !mcpTokens.some((tok) => n.includes(tok))) } : r;
      },
      ...(mcp ? { resolveInput: (text: string, signal: AbortSignal) => expandMcpMentions(text, mcp, signal) } : {}),
      ...(ext ? { beforeInput: (text: string, signal: AbortSignal) => ext.runtime.beforeInput(text, signal), onStop: (c: boolean, signal: AbortSignal) => ext.runtime.onStop(c, signal) } : {}),
      // A checkpoint keeps the history as the model was sent it (previews and cut results, as before the
      // pipeline moved to the outgoing side): the raw results are in the session file, and a copy per model call
      // of the raw history would grow the snapshots by the size of every output read. A rewind adopts that form.
      onCheckpoint: (h) => void cp.save(outgoingOf(h).messages),
      ...(summaries ? { onBatchCompleted: (b) => summaries.onBatchCompleted(b) } : {}),
      // Overflow recovery and /compact work on what the model is sent, like the automatic compaction.
      recoverOverflow: (c) => {
        const r = outgoingOf(c.history);
        const out = context.recoverOverflow({ ...c, history: r.messages });
        if (!out) return undefined;
        return out === r.messages ? c.history : out.map(r.sourceOf);
      },
    },
    hooks: {
      switchModel: (providerId, model) => switchModel(cfg, providerId, model, session?.model.providerId),
      compact: async (c) => {
        const r = outgoingOf(c.history);
        const out = await context.compact({ ...c, history: r.messages });
        return out?.map(r.sourceOf);
      },
      rewind: (op, h) => cp.rewind(op, h),
      ...(recorder || ext
        ? {
            onHistoryChange: (c) => {
              recorder?.onHistoryChange(c);
              if (ext && c.type === "replace" && c.reason === "clear") void ext.runtime.onClear();
            },
          }
        : {}),
      ...(o.interactive
        ? {}
        : {
            autoApprove: (req) => {
              o.onUnansweredApproval?.(req.action, req.reason, req.tool);
              return "deny";
            },
          }),
      onPermissionModeChange: (mode) => policy.setMode(mode),
      onUsage: (u, purpose, model, provider) => {
        if (purpose === "main") context.accountant.reported(u.inputTokens);
        usage.record(purpose, provider ?? session?.model.providerId ?? resolved.providerId, model, u);
      },
      costSoFar: () => usage.session().costUsd,
      runShell: createShellPassthrough({
        tools,
        maxContextChars: () => outgoing.perResultMaxChars(),
        saveOverflow: (callId, text) => outgoing.saveOverflow(callId, text),
        // Without any checkpoint yet, what the command changes would be recorded nowhere (/diff, /undo).
        beforeRun: (command) => {
          if (cp.count === 0) cp.save(outgoingOf([...(session?.messages ?? [])]).messages, { label: `!${command}`, keepPrompt: true });
        },
      }),
      estimateContextTokens: (h) => context.requestTokens(outgoingOf(h as Message[]).messages),
    },
  };
  session = new Session(opts);
  // Subscribed first: the todo list follows each successful `todo` call; its event goes out right after the call's.
  session.subscribe((e) => {
    const update = todos.observe(e) ?? (e.type === "history.replaced" && e.messages.length === 0 && session?.messages.length === 0 ? todos.clear() : undefined);
    if (update) queueMicrotask(() => session?.publish(update));
    initGuard.observe(e);
  });
  skills.attach(session);
  if (recorder) attachRecorder(session, recorder);
  if (ext) {
    const resumed = o.resume !== undefined;
    session.subscribe((e) => {
      if (e.type === "session.started") void ext.runtime.start(resumed ? "resume" : "startup");
      else if (e.type === "approval.requested") ext.runtime.notify(`chatcli needs your permission to use ${e.tool}`, "permission_prompt");
    });
  }
  return {
    store,
    recorder,
    contexts,
    sandbox,
    ext,
    skills,
    subagents,
    k8s,
    checkpoints: cp,
    session,
    usage,
    todos,
    budget,
    initGuard,
    summaries,
    workspace,
    mcp,
    mcpWarnings,
    memory,
    dispose: () => {
      memory?.close();
      k8s.current()?.stop(false);
      mcp?.killNow();
      recorder?.close();
      summaries?.close();
      sandbox.dispose();
      workspace?.cleanup();
    },
  };
}
