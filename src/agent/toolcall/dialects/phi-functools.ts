/** Phi-4-mini: `functools[{"name": "read", "arguments": {…}}, …]` (the marker glued to a JSON list of calls). */
import type { Dialect } from "./dialect.ts";
import { callsFromJsonValue } from "../../native-text-recovery.ts";
import { extractBalanced, parseLenientJson, tryStrictJson } from "../lenient-json.ts";

const MARK = "functools";

export const phiFunctools: Dialect = {
  id: "phi-functools",
  triggers: ["functools["],
  starts: (text, i) => text.startsWith(MARK, i) && text[i + MARK.length] === "[",
  scan(text, i) {
    const j = i + MARK.length;
    const b = extractBalanced(text, j);
    const strict = b > 0 ? tryStrictJson(text.slice(j, b)) : { ok: false as const };
    const v = strict.ok ? { ok: true as const, value: strict.value, end: b, repaired: false } : parseLenientJson(text, "loose", j);
    if (!v.ok) return undefined;
    const calls = callsFromJsonValue(v.value, text.slice(i, v.end), v.repaired, true);
    return calls.length ? { end: v.end, candidates: calls, errors: [] } : undefined;
  },
};
