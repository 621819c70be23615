/**
 * Cohere Command-R / R7B: `<|START_ACTION|>[{"tool_name": "read", "parameters": {…}}]<|END_ACTION|>` (the
 * JSON shape itself is read by native-text-recovery), and the `<|START_THINKING|>…<|END_THINKING|>` plan
 * that precedes it, which leaves the prose.
 */
import type { Dialect } from "./dialect.ts";
import { callsFromJsonValue } from "../../native-text-recovery.ts";
import { parseLenientJson, tryStrictJson } from "../lenient-json.ts";

const OPEN = "<|START_ACTION|>";
const CLOSE = "<|END_ACTION|>";

export const commandR: Dialect = {
  id: "command-r",
  triggers: ["<|start_action|>", "<|start_thinking|>", "<|start_response|>"],
  starts: (text, i) => text[i] === "<" && text[i + 1] === "|",
  scan(text, i) {
    for (const [o, c] of [["<|START_THINKING|>", "<|END_THINKING|>"]] as const) {
      if (!text.startsWith(o, i)) continue;
      const k = text.indexOf(c, i);
      return { end: k < 0 ? text.length : k + c.length, candidates: [], errors: [] };
    }
    for (const tok of ["<|START_RESPONSE|>", "<|END_RESPONSE|>", CLOSE]) {
      if (text.startsWith(tok, i)) return { end: i + tok.length, candidates: [], errors: [] };
    }
    if (!text.startsWith(OPEN, i)) return undefined;
    const close = text.indexOf(CLOSE, i);
    const bodyEnd = close < 0 ? text.length : close;
    const end = close < 0 ? text.length : close + CLOSE.length;
    const body = text.slice(i + OPEN.length, bodyEnd).trim().replace(/^```(?:json)?\s*|```$/g, "").trim();
    const raw = text.slice(i, end);
    const strict = tryStrictJson(body);
    const v = strict.ok ? { ok: true as const, value: strict.value, repaired: false } : parseLenientJson(body, "loose");
    if (!v.ok) return { end, candidates: [], errors: [`A <|START_ACTION|> block is not valid JSON: ${raw.slice(0, 120)}`] };
    const calls = callsFromJsonValue(v.value, raw, v.repaired || close < 0, true);
    return { end, candidates: calls, errors: calls.length ? [] : [`A <|START_ACTION|> block names no tool: ${raw.slice(0, 120)}`] };
  },
};
