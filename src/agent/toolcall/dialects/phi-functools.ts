/** Phi-4-mini: `functools[{"name": "read", "arguments": {…}}, …]` (the marker glued to a JSON list of calls). */
import { jsonValueAt, type Dialect } from "./dialect.ts";
import { callsFromJsonValue } from "../../native-text-recovery.ts";

const MARK = "functools";

export const phiFunctools: Dialect = {
  id: "phi-functools",
  triggers: ["functools["],
  starts: (text, i) => text.startsWith(MARK, i) && text[i + MARK.length] === "[",
  scan(text, i) {
    const j = i + MARK.length;
    const v = jsonValueAt(text, j);
    if (!v) return undefined;
    const calls = callsFromJsonValue(v.value, text.slice(i, v.end), v.repaired, true);
    return calls.length ? { end: v.end, candidates: calls, errors: [] } : undefined;
  },
};
