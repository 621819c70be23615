/**
 * Memory in a session: what wire-session builds once. Mode `off` builds nothing (no file is read or written,
 * nothing goes into the prompt). Otherwise: the legacy MEMORY.md migration (once), recall for every request's
 * system prompt, "remember that …" in the user's input, and (propose / auto, when an extraction model is given)
 * the background worker.
 */
import type { AgentEvent } from "../protocol/events.ts";
import type { LlmRequest } from "../protocol/llm.ts";
import type { Message } from "../protocol/message.ts";
import type { Redactor } from "../store/redact.ts";
import { REDACTED } from "../store/redact.ts";
import { t } from "../i18n/i18n.ts";
import { explicitRemember, scopeOfStatement } from "./explicit.ts";
import { MemoryStore } from "./memory-store.ts";
import { migrateLegacy } from "./migrate.ts";
import { memoryPaths } from "./paths.ts";
import { ingest } from "./reconcile.ts";
import { recall } from "./retrieve.ts";
import { CONFIDENCE, MEMORY_MODES, type MemoryMode } from "./types.ts";
import { MemoryWorker, type MemoryClock, type WorkerSession } from "./worker.ts";

export interface MemorySettings {
  memory?: { mode?: MemoryMode | undefined } | undefined;
}

/** `CHATCLI_MEMORY_MODE` beats settings `memory.mode`; `CHATCLI_MEMORY_ENABLED=false` means off; default `propose`. */
export function memoryMode(env: Record<string, string | undefined>, settings: MemorySettings): MemoryMode {
  const fromEnv = env.CHATCLI_MEMORY_MODE?.trim().toLowerCase();
  if (fromEnv && (MEMORY_MODES as readonly string[]).includes(fromEnv)) return fromEnv as MemoryMode;
  if (settings.memory?.mode) return settings.memory.mode;
  const enabled = env.CHATCLI_MEMORY_ENABLED?.trim().toLowerCase();
  if (enabled === "false" || enabled === "0") return "off";
  return "propose";
}

export interface ExtractionModel {
  model: string;
  local: boolean;
  extract(request: LlmRequest, signal: AbortSignal): Promise<string>;
}

export interface MemoryRuntimeOptions {
  home: string;
  projectRoot: string;
  mode: MemoryMode;
  redact: Redactor;
  sessionId: () => string;
  publish(e: AgentEvent): void;
  log(msg: string): void;
  clock?: MemoryClock;
  /** A saved session's messages (what an earlier session could not extract is retried from it). */
  loadSession?(id: string): readonly Message[] | undefined;
}

export class MemoryRuntime {
  readonly store: MemoryStore;
  private worker: MemoryWorker | undefined;
  private readonly used = new Set<string>();

  constructor(private readonly o: MemoryRuntimeOptions) {
    this.store = new MemoryStore(memoryPaths(o.home, o.projectRoot), { ...(o.clock ? { now: () => o.clock!.now() } : {}), warn: (m) => this.warn(m) });
    try {
      for (const r of migrateLegacy(this.store)) o.publish({ type: "notice", level: "info", text: t("memory.migrated", { file: r.file, count: r.facts, backup: r.backup }) });
    } catch (err) {
      o.log(`memory migration failed: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  get mode(): MemoryMode {
    return this.o.mode;
  }

  /** The recall part of the system prompt for a request (undefined: nothing relevant, or nothing known). */
  systemPart(messages: readonly Message[], contextWindow: number): string | undefined {
    try {
      const r = recall(this.store, messages, contextWindow);
      for (const f of r.facts) this.used.add(f.id);
      return r.text;
    } catch (err) {
      this.o.log(`memory recall failed: ${(err as Error)?.message ?? String(err)}`);
      return undefined;
    }
  }

  /** A prompt entering the history: "remember that …" is stored at once (read-only too: the user asked). */
  onUserText(text: string): void {
    const body = explicitRemember(text);
    if (!body) return;
    const clean = this.o.redact(body);
    if (clean.includes(REDACTED)) {
      this.o.publish({ type: "notice", level: "warn", text: t("memory.secretRefused") });
      return;
    }
    try {
      const scope = scopeOfStatement(clean);
      const { result } = this.store.transact("remember", (tx) => ingest(tx, [{ text: clean, category: "longterm", scope, confidence: CONFIDENCE.userStated, source: { kind: "user" } }], "direct"));
      const f = result.added[0] ?? result.reinforced[0];
      if (f) this.o.publish({ type: "notice", level: "info", text: t("memory.remembered", { scope: f.scope, text: f.text }) });
    } catch (err) {
      this.o.log(`memory remember failed: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  /** Starts the background extraction (propose / auto only). */
  startWorker(session: WorkerSession, model: ExtractionModel): void {
    if (this.worker || (this.o.mode !== "propose" && this.o.mode !== "auto")) return;
    this.worker = new MemoryWorker({
      store: this.store,
      session,
      sessionId: this.o.sessionId,
      mode: this.o.mode,
      extract: (r, s) => model.extract(r, s),
      model: model.model,
      local: model.local,
      redact: this.o.redact,
      ...(this.o.clock ? { clock: this.o.clock } : {}),
      log: (m) => this.o.log(m),
      ...(this.o.loadSession ? { loadSession: this.o.loadSession } : {}),
      onResult: (r, mode) => {
        if (mode === "propose" && r.added.length) this.o.publish({ type: "notice", level: "info", text: t("memory.proposed", { count: r.added.length }) });
        else if (mode === "auto" && r.added.length) this.o.publish({ type: "notice", level: "info", text: t("memory.stored", { count: r.added.length }) });
      },
    });
    this.worker.start();
  }

  get workerStarted(): boolean {
    return this.worker !== undefined;
  }

  /** At exit: the pending extraction, then the uses of what was recalled. */
  async flush(): Promise<void> {
    await this.worker?.flush();
    try {
      this.store.touch([...this.used]);
      this.used.clear();
    } catch (err) {
      this.o.log(`memory use record failed: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  close(): void {
    this.worker?.close();
  }

  private warn(msg: string): void {
    this.o.log(msg);
    this.o.publish({ type: "notice", level: "warn", text: t("memory.corrupt", { message: msg }) });
  }
}
