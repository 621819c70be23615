/**
 * A scripted LlmProvider for agent-loop tests: each `stream` call takes the next scripted reply (text,
 * native tool calls, an error, a delay) and records the request it was given.
 */
import type { LlmProvider } from "../../src/llm/provider.ts";
import type { LlmError, LlmEvent, LlmRequest, ModelInfo, StopReason } from "../../src/protocol/llm.ts";

export interface ScriptedReply {
  text?: string;
  /** Text split into this many deltas. */
  chunks?: number;
  thinking?: string;
  toolCalls?: Array<{ name: string; args: Record<string, unknown> | string; id?: string }>;
  stopReason?: StopReason;
  error?: Partial<LlmError> & { kind: LlmError["kind"] };
  /** Delay between events (ms); lets tests interrupt mid-stream. */
  delayMs?: number;
  /** The reply waits for this before its first event (an abort ends the wait): the test paces the provider. */
  gate?: Promise<unknown>;
  inputTokens?: number;
  outputTokens?: number;
}

export class ScriptedProvider implements LlmProvider {
  readonly id = "SCRIPTED";
  readonly requests: LlmRequest[] = [];
  private readonly replies: ScriptedReply[];
  private callNo = 0;
  private waiters: Array<{ n: number; resolve: () => void }> = [];

  constructor(replies: ScriptedReply[], private readonly fallback: ScriptedReply = { text: "(no more scripted replies)" }) {
    this.replies = [...replies];
  }

  push(...r: ScriptedReply[]): void {
    this.replies.push(...r);
  }

  get pending(): number {
    return this.replies.length;
  }

  async listModels(): Promise<ModelInfo[]> {
    return [{ id: "scripted-model", contextWindow: 32768, supportsTools: true }];
  }

  async modelInfo(model: string): Promise<ModelInfo | undefined> {
    return { id: model, contextWindow: 32768, supportsTools: true };
  }

  /** Resolves once `n` requests have been made (at once if they have). */
  requested(n: number): Promise<void> {
    if (this.requests.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }

  stream(request: LlmRequest, signal?: AbortSignal): AsyncIterable<LlmEvent> {
    this.requests.push(structuredClone(request));
    const reply = this.replies.shift() ?? this.fallback;
    const n = this.callNo++;
    const ready = this.waiters.filter((w) => w.n <= this.requests.length);
    this.waiters = this.waiters.filter((w) => w.n > this.requests.length);
    for (const w of ready) w.resolve();
    return play(reply, n, signal);
  }
}

/** A promise the test settles by hand (provider pacing, hooks that wait). */
export function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void; reject(err: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function untilGateOrAbort(gate: Promise<unknown>, signal?: AbortSignal): Promise<unknown> {
  if (!signal) return gate;
  if (signal.aborted) return Promise.resolve();
  return Promise.race([gate, new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }))]);
}

async function* play(r: ScriptedReply, n: number, signal?: AbortSignal): AsyncGenerator<LlmEvent> {
  const wait = async () => {
    if (r.delayMs) await Bun.sleep(r.delayMs);
  };
  const aborted = (): LlmEvent => ({ type: "error", error: { kind: "aborted", message: "aborted", retryable: false, fallbackable: false } });
  if (r.gate) {
    await untilGateOrAbort(r.gate, signal);
    if (signal?.aborted) return yield aborted();
  }
  if (r.thinking) {
    await wait();
    yield { type: "thinking_delta", text: r.thinking };
  }
  const text = r.text ?? "";
  const parts = r.chunks && r.chunks > 1 ? split(text, r.chunks) : text ? [text] : [];
  for (const p of parts) {
    await wait();
    if (signal?.aborted) return yield aborted();
    yield { type: "text_delta", text: p };
  }
  if (r.error) {
    yield { type: "error", error: { message: r.error.message ?? r.error.kind, retryable: false, fallbackable: false, ...r.error } };
    return;
  }
  let i = 0;
  for (const tc of r.toolCalls ?? []) {
    const id = tc.id ?? `call_${n}_${i}`;
    const args = typeof tc.args === "string" ? tc.args : JSON.stringify(tc.args);
    yield { type: "toolcall_start", index: i, id, name: tc.name };
    yield { type: "toolcall_delta", index: i, argumentsDelta: args };
    yield { type: "toolcall_end", index: i, id, name: tc.name, arguments: args };
    i++;
  }
  if (signal?.aborted) return yield aborted();
  yield { type: "usage", usage: { inputTokens: r.inputTokens ?? 100, outputTokens: r.outputTokens ?? 10, cachedInputTokens: 0, reasoningTokens: 0 } };
  yield { type: "done", stopReason: r.stopReason ?? (r.toolCalls?.length ? "tool_calls" : "stop") };
}

function split(s: string, n: number): string[] {
  const size = Math.max(1, Math.ceil(s.length / n));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}
