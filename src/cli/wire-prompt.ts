/** The system prompts of a session and its children, and the text tool-call protocol (wire-session.ts). */
import { platform } from "node:os";
import { join } from "node:path";
import type { Config } from "../config/load-config.ts";
import type { SystemPart, ToolSpec } from "../protocol/llm.ts";
import { BootstrapLoader, basePrompt, composeSystemPrompt, flavourFromEnv } from "../agent/prompt.ts";
import type { SessionOptions } from "../agent/session/session.ts";
import { parseToolCalls, formatToolCatalogForText, formatToolResultsForText } from "../agent/toolcall-parser.ts";
import { createRedactor } from "../store/redact.ts";
import { Logger } from "../util/logger.ts";

type PromptInput = { nativeTools: boolean; tools: ToolSpec[] };

export interface PromptSources {
  /** The active persona's role (issue 18). */
  role(): string | undefined;
  contexts(): Array<{ name: string; content: string }>;
  extra(): SystemPart[];
  /** Recalled memory (issue 21), when memory is on. */
  memory?(): string | undefined;
}

export function createPrompts(cfg: Config, src: PromptSources) {
  const loader = new BootstrapLoader(cfg.projectRoot, cfg.home);
  const base = (hasTools: boolean, role: string | undefined) =>
    basePrompt({ cwd: cfg.cwd, projectRoot: cfg.projectRoot, platform: platform(), date: new Date().toISOString().slice(0, 10), hasTools, flavour: flavourFromEnv(cfg.env), role });
  const catalog = ({ tools: specs, nativeTools }: PromptInput) => (!nativeTools && specs.length ? { textToolCatalog: formatToolCatalogForText(specs) } : {});
  /** A child's prompt: its definition as the role, the workspace files; no persona, contexts or skill parts. */
  const systemPromptFor = (role: string, p: PromptInput) => composeSystemPrompt({ base: base(p.tools.length > 0, role), bootstrap: loader.load(), ...catalog(p) });
  const systemPrompt: SessionOptions["turn"]["systemPrompt"] = (p) =>
    composeSystemPrompt({
      base: base(p.tools.length > 0, src.role()),
      bootstrap: loader.load(),
      contexts: src.contexts(),
      ...catalog(p),
      extra: src.extra(),
      ...(src.memory ? { memory: src.memory() } : {}),
    });
  return { systemPrompt, systemPromptFor };
}

/** Tool calls written as text (models without native tool calling); each recovery is logged at debug level. */
export function textProtocolFor(cfg: Config): SessionOptions["turn"]["textProtocol"] {
  let log: Logger | undefined;
  return {
    parse: (text) => {
      const r = parseToolCalls(text);
      if (r.calls.length && !log) {
        log = new Logger(join(cfg.home, "logs"));
        log.addScrubber(createRedactor(cfg.env));
      }
      for (const c of r.calls) log?.write("debug", `text protocol: ${c.name} recovered from ${c.dialect}${c.repaired ? " (repaired)" : ""}`);
      return { text: r.text, calls: r.calls.map((c) => ({ name: c.name, args: c.args, recoveredFrom: c.dialect })), errors: r.errors };
    },
    formatResults: (results) => formatToolResultsForText(results),
  };
}
