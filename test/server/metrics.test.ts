// /status counters (src/server/metrics.ts): fed by events once per session and per delivery to each client.
import { expect, test } from "bun:test";
import { ServerMetrics } from "../../src/server/metrics.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";

const usage = (input: number, output: number) => ({ inputTokens: input, outputTokens: output, cachedInputTokens: 0, reasoningTokens: 0 });
const turn = (input: number, output: number): AgentEvent => ({ type: "turn.completed", turnId: "t", stopReason: "end_turn", usage: usage(input, output), totalUsage: usage(input, output), contextTokens: 0, contextWindow: 8192 });

test("sessions, turns, tokens, errors, requests and dropped clients add up; events/s per client over the last 10 s", () => {
  let now = 1_000_000;
  const m = new ServerMetrics(() => now);
  m.observe({ type: "session.started", sessionId: "s", provider: "P", model: "m", cwd: "/", schemaVersion: 2 });
  m.observe(turn(100, 20));
  m.observe(turn(50, 5));
  m.observe({ type: "error", message: "boom" });
  m.request("ok");
  m.request("error");
  m.refused(401);
  m.refused(403);
  m.refused(421);
  m.connected("ws-1", "ws");
  m.connected("ws-2", "ws");
  for (let i = 0; i < 30; i++) m.sent("ws-1");
  now += 2_000;
  for (let i = 0; i < 10; i++) m.sent("ws-1");
  m.droppedClient();
  m.disconnected("ws-2");
  const s = m.snapshot(1);
  expect(s.sessions).toEqual({ live: 1, created: 1 });
  expect(s.turns).toBe(2);
  expect(s.tokens).toEqual({ input: 150, output: 25 });
  expect(s.errors).toEqual({ rpc: 1, events: 1, unauthorized: 1, forbidden: 2 });
  expect(s.requests).toBe(2);
  expect(s.events).toBe(4);
  expect(s.droppedClients).toBe(1);
  expect(s.clients).toEqual([{ id: "ws-1", transport: "ws", connectedMs: 2_000, events: 40, eventsPerSecond: 20 }]);
  now += 20_000; // nothing for longer than the window: the rate falls to 0, the total stays
  expect(m.snapshot(1).clients[0]).toMatchObject({ events: 40, eventsPerSecond: 0 });
});
