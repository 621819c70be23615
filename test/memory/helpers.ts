/** Shared fixtures of the memory tests: a temp home + project, a fake clock, a fake session for the worker. */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent } from "../../src/protocol/events.ts";
import type { Message } from "../../src/protocol/message.ts";
import { MemoryStore } from "../../src/memory/memory-store.ts";
import { memoryPaths } from "../../src/memory/paths.ts";
import type { MemoryClock, WorkerSession } from "../../src/memory/worker.ts";

export function tempMemory(now: () => number = () => Date.parse("2026-03-01T12:00:00Z")): { home: string; project: string; store: MemoryStore; warnings: string[]; cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), "chatcli-memory-"));
  const home = join(root, "home", ".chatcli");
  const project = join(root, "proj");
  mkdirSync(project, { recursive: true });
  const warnings: string[] = [];
  const store = new MemoryStore(memoryPaths(home, project), { now, warn: (m) => warnings.push(m) });
  return { home, project, store, warnings, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** A clock whose time and timers move only when the test says so. */
export class FakeClock implements MemoryClock {
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private seq = 0;
  constructor(public t = Date.parse("2026-03-01T12:00:00Z")) {}
  now = (): number => this.t;
  setTimer = (fn: () => void, ms: number): (() => void) => {
    const id = ++this.seq;
    this.timers.push({ at: this.t + ms, fn, id });
    return () => {
      this.timers = this.timers.filter((x) => x.id !== id);
    };
  };
  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = end;
  }
}

export class FakeSession implements WorkerSession {
  messages: Message[] = [];
  status = "idle";
  private listeners: Array<(e: AgentEvent) => void> = [];
  subscribe(l: (e: AgentEvent) => void): () => void {
    this.listeners.push(l);
    return () => (this.listeners = this.listeners.filter((x) => x !== l));
  }
  idle(): Promise<void> {
    return Promise.resolve();
  }
  emit(e: AgentEvent): void {
    for (const l of this.listeners) l(e);
  }
  /** One exchange: a user message and an answer, then turn.completed while idle. */
  exchange(user: string, answer = "OK."): void {
    this.messages.push({ role: "user", content: user }, { role: "assistant", content: answer });
  }
}

export const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
  await new Promise((r) => setTimeout(r, 0));
};
