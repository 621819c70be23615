/**
 * The client side of the server protocol over one channel (WebSocket, a child's stdio, an in-process pair):
 * requests with ids, results checked with the method's zod schema, notifications handed on in arrival order.
 * A channel carries whole JSON-RPC messages as text; it does its own framing. When the channel closes, every
 * pending request fails with ChannelClosed (a reconnecting caller opens a new channel and a new RpcClient).
 */
import { METHODS, NOTIFICATIONS, rpcResponseSchema, type MethodName, type MethodParams, type MethodResult } from "./protocol.ts";

/** One connection to a server, any transport. */
export interface RpcChannel {
  /** One JSON-RPC message (already serialized). Ignored once closed. */
  send(text: string): void;
  /** Each inbound message, in order. Set once, before the first message can arrive (right after opening). */
  onMessage(listener: (text: string) => void): void;
  /** Called once when the channel closes, from either side, with a reason for logs. */
  onClose(listener: (reason: string) => void): void;
  close(): void;
}

/** A JSON-RPC error answer. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

/** The connection went away before the answer came. */
export class ChannelClosed extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "ChannelClosed";
  }
}

export type Notification =
  | { method: "session/event"; params: import("zod").infer<(typeof NOTIFICATIONS)["session/event"]> }
  | { method: "server/closing"; params: import("zod").infer<(typeof NOTIFICATIONS)["server/closing"]> };

interface Pending {
  method: MethodName;
  resolve(result: unknown): void;
  reject(err: Error): void;
}

export class RpcClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closedReason: string | undefined;
  private readonly closeListeners: Array<(reason: string) => void> = [];

  constructor(
    private readonly channel: RpcChannel,
    private readonly onNotification: (n: Notification) => void,
  ) {
    channel.onMessage((text) => this.receive(text));
    channel.onClose((reason) => this.closed(reason));
  }

  get isClosed(): boolean {
    return this.closedReason !== undefined;
  }

  request<M extends MethodName>(method: M, params: MethodParams<M>): Promise<MethodResult<M>> {
    if (this.closedReason !== undefined) return Promise.reject(new ChannelClosed(this.closedReason));
    const id = this.nextId++;
    return new Promise<MethodResult<M>>((resolve, reject) => {
      this.pending.set(id, { method, resolve: resolve as (r: unknown) => void, reject });
      this.channel.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  /** Called once when the channel closes (after pending requests were failed). */
  onClose(listener: (reason: string) => void): void {
    if (this.closedReason !== undefined) listener(this.closedReason);
    else this.closeListeners.push(listener);
  }

  close(): void {
    this.channel.close();
    this.closed("closed by the client");
  }

  private receive(text: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return; // a server never sends this; nothing to answer
    }
    if (typeof raw === "object" && raw !== null && "method" in raw) return this.notification(raw as { method: unknown; params?: unknown });
    const res = rpcResponseSchema.safeParse(raw);
    if (!res.success || typeof res.data.id !== "number") return;
    const p = this.pending.get(res.data.id);
    if (!p) return;
    this.pending.delete(res.data.id);
    if ("error" in res.data) return p.reject(new RpcError(res.data.error.code, res.data.error.message));
    const result = METHODS[p.method].result.safeParse(res.data.result);
    if (!result.success) return p.reject(new RpcError(-32603, `unexpected ${p.method} result from the server: ${result.error.issues[0]?.message ?? "invalid"}`));
    p.resolve(result.data);
  }

  private notification(raw: { method: unknown; params?: unknown }): void {
    if (raw.method === "session/event") {
      const p = NOTIFICATIONS["session/event"].safeParse(raw.params);
      if (p.success) this.onNotification({ method: "session/event", params: p.data });
    } else if (raw.method === "server/closing") {
      const p = NOTIFICATIONS["server/closing"].safeParse(raw.params);
      if (p.success) this.onNotification({ method: "server/closing", params: p.data });
    }
  }

  private closed(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    for (const p of this.pending.values()) p.reject(new ChannelClosed(reason));
    this.pending.clear();
    for (const l of this.closeListeners.splice(0)) l(reason);
  }
}
