/**
 * `chatcli acp`: the Agent Client Protocol (agentclientprotocol.com, v1) over one stream pair, with
 * @agentclientprotocol/sdk's agent side (loaded with `await import()`). A second front over the same SessionHost as
 * `chatcli serve` (not a translation of our JSON-RPC): sessions are built by the injected SessionFactory, their
 * AgentEvents become `session/update`s (acp-mapping.ts), approvals become `session/request_permission`, and when the
 * client offers `fs/*` the file tools read and write through it (after our path policy and approval).
 *
 * Ordering: every outbound notification goes through one chain, and a prompt's response is released from that chain
 * after its `turn.completed`, so a client sees all of a turn's updates before `stopReason`. session/load replays the
 * whole conversation before it answers, as the spec requires.
 */
import type { AgentContext, AnyMessage, ClientCapabilities, Stream, InitializeResponse, PermissionOption, RequestError as RequestErrorType, SessionModeState, SessionUpdate, ToolCallUpdate } from "@agentclientprotocol/sdk";
import { t } from "../../i18n/i18n.ts";
import type { AgentEvent } from "../../protocol/events.ts";
import type { FileAccess } from "../../tool/file-access.ts";
import { RpcFailure, type HostClient, type SessionExtras, type SessionHost } from "../session-host.ts";
import type { SessionEventParams } from "../protocol.ts";
import { ACP_MODES, decisionFor, eventToUpdates, historyToUpdates, isAcpMode, mcpConfigFor, newMappingState, permissionOptions, promptText, stopReasonFor, toolKind, type AcpMode, type MappingState } from "./acp-mapping.ts";

export interface AcpAgentOptions {
  host: SessionHost;
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
  version: string;
  /** The mode new and resumed sessions start in (never bypass). */
  initialMode: AcpMode;
  /** One line per request (method, outcome): never params. */
  log?: (line: string) => void;
  /** Stop serving (SIGTERM): as if the input had ended. */
  signal?: AbortSignal;
}

interface AcpSession {
  id: string;
  state: MappingState;
  mode: AcpMode;
  /** Prompt calls waiting for their turn.completed, oldest first (our stop reason string). */
  prompts: Array<(stopReason: string) => void>;
  lastError: string | undefined;
  /** session/load is replaying: the user's own prompts are sent, approvals and stop reasons are not acted on. */
  replaying: boolean;
}

/** Serves one ACP client until its input ends (or `signal` aborts); then every session ends its turn and is saved. */
export async function runAcpAgent(o: AcpAgentOptions): Promise<void> {
  const acp = await import("@agentclientprotocol/sdk");
  const { RequestError } = acp;
  const sessions = new Map<string, AcpSession>();
  let caps: ClientCapabilities = {};
  let peer: AgentContext | undefined;
  let out: Promise<void> = Promise.resolve();
  const log = (line: string) => o.log?.(line);

  /** Runs `fn` after every notification queued before it has been written. */
  const enqueue = (fn: () => unknown) => {
    out = out.then(fn).then(() => undefined).catch((e: unknown) => log(`send failed: ${e instanceof Error ? e.message : String(e)}`));
  };
  const notify = (s: AcpSession, update: SessionUpdate) => enqueue(() => peer?.notify("session/update", { sessionId: s.id, update }));

  const fail = (e: unknown): RequestErrorType => {
    if (e instanceof RequestError) return e;
    const message = e instanceof Error ? e.message : String(e);
    if (e instanceof RpcFailure && e.code === -32602) return RequestError.invalidParams(undefined, message);
    if (e instanceof RpcFailure && e.code === -32001) return new RequestError(-32002, message);
    return RequestError.internalError(undefined, message);
  };

  const client: HostClient = {
    id: "acp",
    sendEvent: (p: SessionEventParams) => {
      const s = sessions.get(p.sessionId);
      if (s) onEvent(s, p.event);
    },
  };

  const onEvent = (s: AcpSession, e: AgentEvent) => {
    for (const u of eventToUpdates(e, s.state, s.replaying)) notify(s, u);
    if (s.replaying) return;
    if (e.type === "permission_mode.changed" && isAcpMode(e.mode)) s.mode = e.mode;
    if (e.type === "error") s.lastError = e.message;
    if (e.type === "approval.requested") enqueue(() => void askPermission(s, e));
    if (e.type === "turn.completed") {
      const waiter = s.prompts.shift();
      enqueue(() => waiter?.(e.stopReason));
    }
  };

  const askPermission = async (s: AcpSession, e: Extract<AgentEvent, { type: "approval.requested" }>) => {
    const callId = [...s.state.open].reverse().find(([, name]) => name === e.tool)?.[0];
    const options: PermissionOption[] = permissionOptions(e.noAlways === true, { allowOnce: t("acp.allowOnce"), allowAlways: t("acp.allowAlways"), rejectOnce: t("acp.rejectOnce"), rejectAlways: t("acp.rejectAlways") });
    // The call it is about keeps its own content (an edit's diff); an ask outside a call carries the reason.
    const toolCall: ToolCallUpdate = callId
      ? { toolCallId: callId, title: e.action, status: "pending" }
      : { toolCallId: e.requestId, title: e.action, kind: toolKind(e.tool), status: "pending", content: [{ type: "content", content: { type: "text", text: e.diff ? `${e.reason}\n\n${e.diff}` : e.reason } }] };
    const answer = await peer?.request("session/request_permission", { sessionId: s.id, toolCall, options }).catch((err: unknown) => {
      log(`permission request failed: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    });
    const decision = decisionFor(answer?.outcome, options);
    try {
      o.host.submit(client, s.id, { type: "approval", requestId: e.requestId, decision });
    } catch {
      // the session ended meanwhile: the ask was already answered `deny`
    }
  };

  const modes = (s: AcpSession): SessionModeState => ({
    currentModeId: s.mode,
    availableModes: ACP_MODES.map((id) => ({ id, name: t(`acp.mode.${id}`), description: t(`acp.modeHelp.${id}`) })),
  });

  /** The client's fs methods, when offered, for the tools of session `holder.id` (set once the session exists). */
  const filesFor = (holder: { id: string }): FileAccess | undefined => {
    const fs = caps.fs;
    if (!fs?.readTextFile && !fs?.writeTextFile) return undefined;
    const files: FileAccess = {};
    if (fs.readTextFile) files.readText = async (path) => (await peer!.request("fs/read_text_file", { sessionId: holder.id, path })).content;
    if (fs.writeTextFile)
      files.writeText = async (path, content) => {
        await peer!.request("fs/write_text_file", { sessionId: holder.id, path, content });
      };
    return files;
  };

  const extrasFor = (holder: { id: string }, mcpServers: Parameters<typeof mcpConfigFor>[0]): SessionExtras => {
    const files = filesFor(holder);
    const mcp = mcpConfigFor(mcpServers);
    return { ...(files ? { files } : {}), ...(mcp ? { mcpConfig: [mcp] } : {}) };
  };

  const need = (id: string): AcpSession => {
    const s = sessions.get(id);
    if (!s) throw new RequestError(-32002, `no session ${id} on this connection`);
    return s;
  };

  const submit = (s: AcpSession, op: Parameters<SessionHost["submit"]>[2]) => {
    try {
      o.host.submit(client, s.id, op);
    } catch (e) {
      throw fail(e);
    }
  };

  const app = acp.agent({ name: "chatcli" });
  app.onConnect((c) => {
    peer = c.client;
  });
  app.onRequest("initialize", ({ params }): InitializeResponse => {
    caps = params.clientCapabilities ?? {};
    log(`initialize (client protocol ${params.protocolVersion})`);
    return {
      // One version is spoken: the client's when it is ours, else ours (the client then decides).
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        // session/load replays the saved conversation as session/update notifications.
        loadSession: true,
        // Text and embedded text resources; images would need a vision model and a path for them (not yet).
        promptCapabilities: { image: false, audio: false, embeddedContext: true },
        // ACP's MCP servers become --mcp-config entries: stdio, Streamable HTTP and SSE are all supported.
        mcpCapabilities: { http: true, sse: true },
      },
      authMethods: [],
      agentInfo: { name: "chatcli", title: "chatcli", version: o.version },
    };
  });
  app.onRequest("session/new", async ({ params }) => {
    const holder = { id: "" };
    const attached = await o.host.create(client, { cwd: params.cwd, permissionMode: o.initialMode }, extrasFor(holder, params.mcpServers ?? [])).catch((e: unknown) => {
      throw fail(e);
    });
    holder.id = attached.result.session.sessionId;
    const s: AcpSession = { id: holder.id, state: newMappingState(attached.result.session.cwd), mode: o.initialMode, prompts: [], lastError: undefined, replaying: false };
    sessions.set(s.id, s);
    attached.afterResponse(); // session.started: nothing an ACP client is sent
    log(`session/new ${s.id}`);
    return { sessionId: s.id, modes: modes(s) };
  });
  app.onRequest("session/load", async ({ params }) => {
    const holder = { id: params.sessionId };
    const existing = sessions.get(params.sessionId);
    // A live session (this process) replays its event log from the start; a saved one is resumed from its history.
    const attached = await o.host
      .load(client, params.sessionId, 0, extrasFor(holder, params.mcpServers ?? []))
      .catch(() => o.host.load(client, params.sessionId, undefined, extrasFor(holder, params.mcpServers ?? [])))
      .catch((e: unknown) => {
        throw fail(e);
      });
    holder.id = attached.result.session.sessionId;
    const s: AcpSession = existing ?? { id: holder.id, state: newMappingState(attached.result.session.cwd), mode: o.initialMode, prompts: [], lastError: undefined, replaying: false };
    sessions.set(s.id, s);
    s.replaying = true;
    for (const u of historyToUpdates(attached.result.history ?? [], s.state.cwd)) notify(s, u);
    attached.afterResponse();
    s.replaying = false;
    await out;
    log(`session/load ${s.id}`);
    return { modes: modes(s) };
  });
  app.onRequest("session/prompt", async ({ params }) => {
    const s = need(params.sessionId);
    const text = promptText(params.prompt);
    if (!text) return { stopReason: "end_turn" as const };
    s.lastError = undefined;
    const done = new Promise<string>((resolve) => s.prompts.push(resolve));
    try {
      submit(s, { type: "user_input", text });
    } catch (e) {
      s.prompts.pop();
      throw e;
    }
    const ours = await done;
    const reason = stopReasonFor(ours);
    log(`session/prompt ${s.id} ${ours}`);
    if (reason === "error") throw RequestError.internalError(undefined, s.lastError ?? "the turn failed");
    return { stopReason: reason };
  });
  app.onNotification("session/cancel", ({ params }) => {
    const s = sessions.get(params.sessionId);
    if (!s) return;
    log(`session/cancel ${s.id}`);
    try {
      o.host.submit(client, s.id, { type: "interrupt" });
    } catch {
      // already gone
    }
  });
  app.onRequest("session/set_mode", ({ params }) => {
    const s = need(params.sessionId);
    if (!isAcpMode(params.modeId)) throw RequestError.invalidParams(undefined, `unknown mode ${params.modeId} (offered: ${ACP_MODES.join(", ")})`);
    submit(s, { type: "set_permission_mode", mode: params.modeId });
    log(`session/set_mode ${s.id} ${params.modeId}`);
    return {};
  });

  // The end of input (or SIGTERM) ends every turn and saves every session first, then waits for the answers
  // still owed (a client may write its requests and close at once), and only then closes the connection.
  const stream = drainingStream(acp.ndJsonStream(o.output, o.input), o.signal, () => o.host.shutdown());
  const conn = app.connect(stream);
  await conn.closed.catch(() => undefined);
  sessions.clear();
  await o.host.shutdown();
}

type Msg = AnyMessage;

/**
 * Wraps the SDK's message stream: counts the requests read and the responses written; when the input ends (or
 * `signal` aborts), runs `beforeClose` and then ends the readable side once every request read has been answered.
 */
function drainingStream(inner: Stream, signal: AbortSignal | undefined, beforeClose: () => Promise<void>): Stream {
  const owed = new Set<unknown>();
  const waiters: Array<() => void> = [];
  const answered = () => (owed.size ? new Promise<void>((r) => waiters.push(r)) : Promise.resolve());
  const isRequest = (m: Msg) => "method" in m && "id" in m;
  const isResponse = (m: Msg) => !("method" in m) && "id" in m;
  const reader = inner.readable.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener("abort", stop, { once: true });
  if (signal?.aborted) stop();
  const readable = new ReadableStream<Msg>({
    async pull(controller) {
      const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (!done) {
        if (isRequest(value)) owed.add((value as { id: unknown }).id);
        controller.enqueue(value);
        return;
      }
      signal?.removeEventListener("abort", stop);
      await beforeClose();
      await answered();
      controller.close();
    },
  });
  const writer = inner.writable.getWriter();
  const writable = new WritableStream<Msg>({
    async write(m) {
      await writer.write(m);
      if (isResponse(m) && owed.delete((m as { id: unknown }).id) && owed.size === 0) for (const w of waiters.splice(0)) w();
    },
    close: () => writer.close(),
  });
  return { readable, writable };
}
