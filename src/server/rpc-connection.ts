/**
 * One client connection, whatever the transport: takes inbound frames (text), answers JSON-RPC 2.0, forwards the
 * attached sessions' events as `session/event` notifications. A malformed frame gets an error response and the
 * connection goes on; nothing a client sends can throw out of `receive`.
 */
import type { Op } from "../protocol/events.ts";
import { isMethodName, METHODS, RPC_ERROR, rpcInboundSchema, SERVER_PROTOCOL_VERSION, EVENT_SCHEMA_VERSION, type MethodName, type MethodParams, type RpcId, type SessionEventParams } from "./protocol.ts";
import { RpcFailure, type HostClient, type SessionHost } from "./session-host.ts";

export interface RpcConnectionOptions {
  id: string;
  host: SessionHost;
  /** Writes one message to the client (the transport frames it). */
  send(message: unknown): void;
  serverVersion: string;
  /** One line per request (method, id, outcome): never params, which may hold secrets. */
  log?: (line: string) => void;
}

type Handler = (params: never) => Promise<{ result: unknown; afterResponse?: () => void }>;

export class RpcConnection implements HostClient {
  readonly id: string;
  private initialized = false;

  constructor(private readonly o: RpcConnectionOptions) {
    this.id = o.id;
  }

  sendEvent(params: SessionEventParams): void {
    this.o.send({ jsonrpc: "2.0", method: "session/event", params });
  }

  /** One inbound frame. Resolves once it is answered (tests and transports may ignore the promise). */
  async receive(text: string): Promise<void> {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return this.error(null, RPC_ERROR.parseError, "parse error: the frame is not JSON");
    }
    if (Array.isArray(raw)) return this.error(null, RPC_ERROR.invalidRequest, "batches are not supported");
    const env = rpcInboundSchema.safeParse(raw);
    if (!env.success) return this.error(idOf(raw), RPC_ERROR.invalidRequest, "invalid request: expected {jsonrpc: \"2.0\", method, params?, id?}");
    const { id, method } = env.data;
    const respond = id !== undefined;
    if (!isMethodName(method)) return respond ? this.error(id, RPC_ERROR.methodNotFound, `method not found: ${method}`) : undefined;
    const params = METHODS[method].params.safeParse(env.data.params ?? {});
    if (!params.success) return respond ? this.error(id, RPC_ERROR.invalidParams, `invalid params for ${method}: ${params.error.issues.map((i) => `${i.path.join(".") || "params"}: ${i.message}`).join("; ")}`) : undefined;
    if (method !== "initialize" && !this.initialized) return respond ? this.error(id, RPC_ERROR.notInitialized, "call initialize first") : undefined;
    const t0 = performance.now();
    const ms = () => Math.round(performance.now() - t0);
    try {
      const out = await this.handlers()[method](params.data as never);
      this.o.log?.(`${this.id} ${method} ok ${ms()}ms`);
      if (respond) this.o.send({ jsonrpc: "2.0", id, result: out.result });
      out.afterResponse?.();
    } catch (err) {
      const code = err instanceof RpcFailure ? err.code : RPC_ERROR.internalError;
      this.o.log?.(`${this.id} ${method} error ${code} ${ms()}ms`);
      if (respond) this.o.send({ jsonrpc: "2.0", id, error: { code, message: err instanceof Error ? err.message : String(err) } });
    }
  }

  /** Transport closed: the sessions go on. */
  closed(): void {
    this.o.host.detach(this);
  }

  /** The frame was over the size cap (it was skipped unread). */
  oversize(bytes: number): void {
    this.error(null, RPC_ERROR.messageTooLarge, `message too large (${bytes} bytes)`);
  }

  private handlers(): Record<MethodName, Handler> {
    const host = this.o.host;
    const op = (sessionId: string, o: Op) => {
      host.submit(this, sessionId, o);
      return Promise.resolve({ result: {} });
    };
    return {
      initialize: async (p: MethodParams<"initialize">) => {
        if (p.protocolVersion !== SERVER_PROTOCOL_VERSION) throw new RpcFailure(RPC_ERROR.unsupportedVersion, `protocol version ${p.protocolVersion} is not supported (this server speaks ${SERVER_PROTOCOL_VERSION})`);
        this.initialized = true;
        return { result: { protocolVersion: SERVER_PROTOCOL_VERSION, eventSchemaVersion: EVENT_SCHEMA_VERSION, serverInfo: { name: "chatcli", version: this.o.serverVersion }, methods: Object.keys(METHODS) } };
      },
      "session/new": (p: MethodParams<"session/new">) => host.create(this, p),
      "session/load": (p: MethodParams<"session/load">) => host.load(this, p.sessionId, p.afterSeq),
      "session/list": async () => ({ result: { sessions: host.list() } }),
      "session/prompt": async (p: MethodParams<"session/prompt">) => {
        const { wasRunning } = host.submit(this, p.sessionId, { type: "user_input", text: p.text, ...(p.display ? { display: p.display } : {}) });
        return { result: { queued: wasRunning } };
      },
      "session/interrupt": (p: MethodParams<"session/interrupt">) => op(p.sessionId, { type: "interrupt" }),
      "session/approve": (p: MethodParams<"session/approve">) => op(p.sessionId, { type: "approval", requestId: p.requestId, decision: p.decision }),
      "session/setModel": (p: MethodParams<"session/setModel">) => op(p.sessionId, { type: "set_model", provider: p.provider, model: p.model }),
      "session/setMode": (p: MethodParams<"session/setMode">) => op(p.sessionId, { type: "set_permission_mode", mode: p.mode }),
      "session/compact": (p: MethodParams<"session/compact">) => op(p.sessionId, { type: "compact", ...(p.instruction ? { instruction: p.instruction } : {}) }),
      "session/rewind": (p: MethodParams<"session/rewind">) =>
        op(p.sessionId, { type: "rewind", checkpointId: p.checkpointId, mode: p.mode, ...(p.deleteCreated !== undefined ? { deleteCreated: p.deleteCreated } : {}), ...(p.force !== undefined ? { force: p.force } : {}) }),
      "session/removeQueued": (p: MethodParams<"session/removeQueued">) => op(p.sessionId, { type: "remove_queued", index: p.index }),
      "session/sendQueued": (p: MethodParams<"session/sendQueued">) => op(p.sessionId, { type: "send_queued" }),
      "session/clear": (p: MethodParams<"session/clear">) => op(p.sessionId, { type: "clear" }),
      "session/shell": (p: MethodParams<"session/shell">) => op(p.sessionId, { type: "shell", command: p.command }),
      "session/checkpoints": async (p: MethodParams<"session/checkpoints">) => ({ result: host.checkpoints(this, p.sessionId, p.planIds) }),
      "models/list": async (p: MethodParams<"models/list">) => ({ result: { models: await host.models(p.sessionId) } }),
      "session/close": async (p: MethodParams<"session/close">) => {
        host.submit(this, p.sessionId, { type: "interrupt" }); // only the driver may close: submit checks
        await host.close(p.sessionId);
        return { result: { closed: true } };
      },
    };
  }

  /** A request refused before dispatch (malformed, unknown, bad params, not initialized, too large): logged too. */
  private error(id: RpcId | null, code: number, message: string): void {
    this.o.log?.(`${this.id} - error ${code}`);
    this.o.send({ jsonrpc: "2.0", id, error: { code, message } });
  }
}

function idOf(raw: unknown): RpcId | null {
  if (typeof raw !== "object" || raw === null || !("id" in raw)) return null;
  const id = (raw as { id: unknown }).id;
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : null;
}
