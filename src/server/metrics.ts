/**
 * Counters for `GET /status` (the seed's bus-throughput metrics): sessions, turns, tokens, errors, requests,
 * events/s per client over the last RATE_WINDOW_S seconds, dropped (slow) clients. Fed by the transports and by
 * `observe(event)` for every event a session emits (counted once, not per client).
 */
import type { AgentEvent } from "../protocol/events.ts";

const RATE_WINDOW_S = 10;

interface ClientStats {
  id: string;
  transport: string;
  connectedAt: number;
  events: number;
  /** [second, count] buckets of the last window. */
  buckets: Array<[number, number]>;
}

export interface StatusCounters {
  uptimeMs: number;
  sessions: { live: number; created: number };
  turns: number;
  tokens: { input: number; output: number };
  errors: { rpc: number; events: number; unauthorized: number; forbidden: number };
  requests: number;
  events: number;
  clients: Array<{ id: string; transport: string; connectedMs: number; events: number; eventsPerSecond: number }>;
  droppedClients: number;
}

export class ServerMetrics {
  private readonly started: number;
  private readonly clients = new Map<string, ClientStats>();
  private created = 0;
  private turns = 0;
  private tokensIn = 0;
  private tokensOut = 0;
  private rpcErrors = 0;
  private eventErrors = 0;
  private unauthorized = 0;
  private forbidden = 0;
  private requests = 0;
  private events = 0;
  private dropped = 0;

  constructor(private readonly now: () => number = Date.now) {
    this.started = now();
  }

  /** One event a session emitted (before it fans out to clients). */
  observe(event: AgentEvent): void {
    this.events += 1;
    if (event.type === "session.started") this.created += 1;
    else if (event.type === "turn.completed") {
      this.turns += 1;
      this.tokensIn += event.usage.inputTokens;
      this.tokensOut += event.usage.outputTokens;
    } else if (event.type === "error") this.eventErrors += 1;
  }

  request(outcome: "ok" | "error"): void {
    this.requests += 1;
    if (outcome === "error") this.rpcErrors += 1;
  }

  refused(status: 401 | 403 | 421): void {
    if (status === 401) this.unauthorized += 1;
    else this.forbidden += 1;
  }

  connected(id: string, transport: string): void {
    this.clients.set(id, { id, transport, connectedAt: this.now(), events: 0, buckets: [] });
  }

  disconnected(id: string): void {
    this.clients.delete(id);
  }

  droppedClient(): void {
    this.dropped += 1;
  }

  /** One event delivered to a client. */
  sent(id: string): void {
    const c = this.clients.get(id);
    if (!c) return;
    c.events += 1;
    const sec = Math.floor(this.now() / 1000);
    const last = c.buckets.at(-1);
    if (last && last[0] === sec) last[1] += 1;
    else c.buckets.push([sec, 1]);
    while (c.buckets.length > 0 && c.buckets[0]![0] <= sec - RATE_WINDOW_S) c.buckets.shift();
  }

  snapshot(liveSessions: number): StatusCounters {
    const now = this.now();
    const sec = Math.floor(now / 1000);
    return {
      uptimeMs: now - this.started,
      sessions: { live: liveSessions, created: this.created },
      turns: this.turns,
      tokens: { input: this.tokensIn, output: this.tokensOut },
      errors: { rpc: this.rpcErrors, events: this.eventErrors, unauthorized: this.unauthorized, forbidden: this.forbidden },
      requests: this.requests,
      events: this.events,
      clients: [...this.clients.values()].map((c) => {
        const inWindow = c.buckets.filter(([s]) => s > sec - RATE_WINDOW_S).reduce((n, [, k]) => n + k, 0);
        const span = Math.min(RATE_WINDOW_S, Math.max(1, (now - c.connectedAt) / 1000));
        return { id: c.id, transport: c.transport, connectedMs: now - c.connectedAt, events: c.events, eventsPerSecond: Math.round((inWindow / span) * 100) / 100 };
      }),
      droppedClients: this.dropped,
    };
  }
}
