/**
 * OpenAI harmony (gpt-oss) printed as text because the runtime did not parse it:
 * `<|start|>assistant<|channel|>commentary to=functions.read <|constrain|>json<|message|>{…}<|call|>`, the
 * recipient also before the channel (`assistant to=functions.read<|channel|>commentary json<|message|>`), or
 * the header without tokens at a line start (`commentary to=functions.read json<|message|>…`). An analysis
 * message is reasoning and leaves the prose; a final message keeps its content and loses only its tokens.
 */
import type { Dialect } from "./dialect.ts";
import { parseLenientJson } from "./dialect.ts";
import { tryStrictJson } from "../lenient-json.ts";

const MESSAGE = "<|message|>";
const TERMINATORS = ["<|call|>", "<|end|>", "<|return|>"];
const STOPS = [...TERMINATORS, "<|start|>", "<|channel|>"];
const LONE = ["<|end|>", "<|return|>", "<|call|>", "<|start|>assistant", "<|start|>"];

function firstOf(text: string, from: number, needles: readonly string[]): { at: number; len: number } {
  let best = { at: text.length, len: 0 };
  for (const n of needles) {
    const k = text.indexOf(n, from);
    if (k >= 0 && k < best.at) best = { at: k, len: n.length };
  }
  return best;
}

export const harmony: Dialect = {
  id: "harmony",
  triggers: ["<|channel|>", "<|start|>", "<|message|>", "<|call|>", "<|end|>", "<|return|>"],
  starts: (text, i, lineStart) => (text[i] === "<" && text[i + 1] === "|") || (lineStart && (text.startsWith("commentary to=", i) || text.startsWith("assistant to=", i))),
  scan(text, i) {
    const msg = text.indexOf(MESSAGE, i);
    const header = msg >= 0 && msg - i < 300 ? text.slice(i, msg) : "";
    if (!header || /<\|(?:call|end|return)\|>/.test(header)) {
      const lone = LONE.find((t) => text.startsWith(t, i));
      return lone ? { end: i + lone.length, candidates: [], errors: [] } : undefined;
    }
    if (!/^(?:<\|start\|>|<\|channel\|>|commentary to=|assistant to=)/.test(header)) return undefined;
    const bodyStart = msg + MESSAGE.length;
    const stop = firstOf(text, bodyStart, STOPS);
    const body = text.slice(bodyStart, stop.at);
    const endsWithToken = TERMINATORS.some((t) => text.startsWith(t, stop.at));
    const end = endsWithToken ? stop.at + stop.len : stop.at;
    const to = /\bto=(?:functions\.)?([A-Za-z_][\w.\-]*)/.exec(header);
    const channel = /<\|channel\|>\s*(\w+)/.exec(header)?.[1] ?? (header.startsWith("commentary") ? "commentary" : "");
    if (!to || to[1] === "assistant") {
      // no recipient: an analysis message is reasoning (dropped), anything else is prose (tokens dropped)
      if (channel === "analysis") return { end, candidates: [], errors: [] };
      return { end: bodyStart, candidates: [], errors: [] };
    }
    const raw = text.slice(i, end);
    const t = body.trim();
    const strict = tryStrictJson(t);
    const parsed = strict.ok ? { ok: true as const, value: strict.value, repaired: false } : parseLenientJson(t, "loose");
    if (!parsed.ok) return { end, candidates: [{ name: to[1]!, args: { kind: "raw", text: t }, raw, repaired: true }], errors: [] };
    return { end, candidates: [{ name: to[1]!, args: { kind: "value", value: parsed.value }, raw, repaired: parsed.repaired || !endsWithToken }], errors: [] };
  },
};
