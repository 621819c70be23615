/**
 * The dialect registry: every recogniser of a model family's tool-call markup, tried in this order at each
 * position the parser's scan reaches (toolcall-parser.ts). Adding a dialect is one file plus one line here.
 * The generic scanners (<tool_call>, <function=…>, <invoke>, DeepSeek tokens, JSON call shapes) run after these
 * and are labelled by `labelGeneric`.
 */
import type { ScanHit } from "../candidate.ts";
import type { Dialect } from "./dialect.ts";
import { harmony } from "./harmony.ts";
import { llamaPythonTag } from "./llama-python-tag.ts";
import { commandR } from "./command-r.ts";
import { gemma } from "./gemma.ts";
import { functionary } from "./functionary.ts";
import { bracketTags } from "./bracket-tags.ts";
import { functionNameAttr } from "./function-name-attr.ts";
import { clineXml } from "./cline-xml.ts";
import { pythonCall } from "./python-call.ts";
import { phiFunctools } from "./phi-functools.ts";
import { agentCall } from "./agent-call.ts";
import { CLINE_ELEMENT_NAMES } from "./cline-xml.ts";
import { bareCallNames } from "./known-names.ts";

export const DIALECTS: readonly Dialect[] = [harmony, llamaPythonTag, commandR, gemma, functionary, bracketTags, functionNameAttr, phiFunctools, clineXml, pythonCall, agentCall];

/** The first dialect's hit at `i`, its candidates stamped with the dialect id. */
export function scanDialectAt(text: string, i: number, lineStart: boolean): ScanHit | undefined {
  for (const d of DIALECTS) {
    if (!d.starts(text, i, lineStart)) continue;
    const h = d.scan(text, i);
    if (!h || h.end <= i) continue;
    for (const c of h.candidates) c.dialect ??= d.id;
    return h;
  }
  return undefined;
}

/** Lower-case strings after which a streamed answer may be tool-call markup of some dialect (display holdback). */
export const DIALECT_TRIGGERS: readonly string[] = [...new Set(DIALECTS.flatMap((d) => d.triggers))];

/**
 * Triggers that count only at a line start, written with a leading "\n": a python call of one of our tools,
 * a Cline element (also with the `<` lost), functionary's `>>>`, a harmony header without tokens.
 */
export const LINE_START_TRIGGERS: readonly string[] = [
  ...bareCallNames().flatMap((n) => [`\n${n}(`, `\n[${n}(`, `\n<${n}>`, `\n${n}>`]),
  ...CLINE_ELEMENT_NAMES.flatMap((n) => [`<${n}>`, `\n${n}>`]),
  "\n>>>",
  "\ncommentary to=",
  "\nassistant to=",
];

/** The dialect id of a call the generic scanners found, from the markup it was read from. */
export function labelGeneric(raw: string, fromJson: boolean): string {
  const r = raw.trimStart();
  if (fromJson) return "json";
  if (/^<[｜|]tool[▁_]/.test(r) || /^function<[｜|]tool[▁_]sep/.test(r)) return "deepseek";
  if (/^<function=/i.test(r) || /^<tool_call>\s*(?:[^<]*\n)?\s*<function=/i.test(r)) return "qwen3-coder";
  if (/^<invoke/i.test(r) || /^<function_calls>\s*<invoke/i.test(r)) return "invoke";
  if (/^\[TOOL_CALLS\]/.test(r)) return "mistral";
  if (/^\[/.test(r)) return "bracket-tags";
  if (/^<\|python_tag\|>/.test(r)) return "llama-python-tag";
  return "tool-tag";
}
