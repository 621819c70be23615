/**
 * Memory for a wired session (issue 21): the runtime (recall, "remember that …", migration) and its extraction
 * model — the fast model when one is configured, else the session's own binding at the time of each extraction.
 * Either way it counts as local (it waits for an idle session and yields to a turn) when its endpoint is on this
 * machine. Mode `off` wires nothing.
 */
import type { Config } from "../config/load-config.ts";
import type { Session } from "../agent/session/session.ts";
import { fastModelSpec, parseFastModel } from "../agent/summaries.ts";
import { createProvider, getProviderDefinition, resolveApiKey, resolveBaseUrl } from "../llm/registry.ts";
import { isLocalEndpoint } from "../llm/local-endpoint.ts";
import type { LlmProvider } from "../llm/provider.ts";
import type { LlmRequest, Usage } from "../protocol/llm.ts";
import type { AgentEvent } from "../protocol/events.ts";
import type { Redactor } from "../store/redact.ts";
import { MemoryRuntime, memoryMode, type ExtractionModel } from "../memory/runtime.ts";
import { SessionStore } from "../store/session-store.ts";

export interface WireMemoryOptions {
  cfg: Config;
  redact: Redactor;
  sessionId: () => string;
  publish(e: AgentEvent): void;
  log(msg: string): void;
}

export function wireMemory(o: WireMemoryOptions): MemoryRuntime | undefined {
  const mode = memoryMode(o.cfg.env, o.cfg.settings);
  if (mode === "off") return undefined;
  const loadSession = (id: string) => {
    try {
      return new SessionStore({ home: o.cfg.home, env: o.cfg.env }).load(id)?.history;
    } catch {
      return undefined;
    }
  };
  return new MemoryRuntime({ home: o.cfg.home, projectRoot: o.cfg.projectRoot, mode, redact: o.redact, sessionId: o.sessionId, publish: o.publish, log: o.log, loadSession });
}

/** Starts extraction for a session (interactive or one-shot: what is pending is extracted at exit, main.ts flushes). */
export function startMemoryWorker(memory: MemoryRuntime, cfg: Config, session: Session, onUsage: (u: Usage, model: string, providerId: string) => void, log: (m: string) => void): void {
  memory.startWorker(session, extractionModel(cfg, session, onUsage, log));
}

function extractionModel(cfg: Config, session: Session, onUsage: (u: Usage, model: string, providerId: string) => void, log: (m: string) => void): ExtractionModel {
  const fast = fastProvider(cfg, log);
  if (fast) return { model: fast.model, local: fast.local, extract: (r, s) => streamText(fast.provider, r, s, (u) => onUsage(u, fast.model, fast.providerId)) };
  const mainLocal = () => {
    const def = getProviderDefinition(session.model.providerId);
    return def ? isLocalEndpoint(resolveBaseUrl(def, cfg.env)) : false;
  };
  return {
    get model() {
      return session.model.model;
    },
    get local() {
      return mainLocal();
    },
    extract: (r, s) => streamText(session.model.provider, { ...r, model: session.model.model }, s, (u) => onUsage(u, session.model.model, session.model.providerId)),
  };
}

function fastProvider(cfg: Config, log: (m: string) => void): { provider: LlmProvider; providerId: string; model: string; local: boolean } | undefined {
  const spec = fastModelSpec(cfg.env, cfg.settings);
  if (!spec) return undefined;
  const ref = parseFastModel(spec);
  const def = ref ? getProviderDefinition(ref.providerId) : undefined;
  if (!ref || !def || (def.needsAuth && !resolveApiKey(def, cfg.env))) {
    log(`memory: fastModel "${spec}" is not usable; extraction uses the session's model`);
    return undefined;
  }
  const env = { ...cfg.env, ...(ref.baseUrl ? { [def.baseUrlEnv]: ref.baseUrl } : {}) };
  try {
    return { provider: createProvider(def.id, env), providerId: def.id, model: ref.model, local: isLocalEndpoint(resolveBaseUrl(def, env)) };
  } catch (err) {
    log(`memory: fastModel provider failed: ${(err as Error)?.message ?? String(err)}`);
    return undefined;
  }
}

/** The reply text of one request; an error event or an abort rejects. */
async function streamText(provider: LlmProvider, request: LlmRequest, signal: AbortSignal, onUsage: (u: Usage) => void): Promise<string> {
  let text = "";
  for await (const ev of provider.stream(request, signal)) {
    if (ev.type === "text_delta") text += ev.text;
    else if (ev.type === "usage") onUsage(ev.usage);
    else if (ev.type === "error") throw new Error(`${ev.error.kind}: ${ev.error.message}`);
  }
  if (signal.aborted) throw new Error("aborted");
  return text;
}
