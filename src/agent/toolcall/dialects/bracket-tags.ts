/**
 * Square-bracket markers: LM Studio's `[TOOL_REQUEST]{json}[END_TOOL_REQUEST]`, `[TOOL_CALL]…[/TOOL_CALL]`,
 * `[tool]read[args]{…}[end]`, `[FUNCTION_CALL] read {…}`, Mistral's `[TOOL_CALLS]read[ARGS]{…}` and
 * `[TOOL_CALLS][{…}]`. The body is JSON (a call shape) or a name followed by an arguments object.
 */
import type { Candidate } from "../candidate.ts";
import { jsonValueAt, type Dialect } from "./dialect.ts";
import { callsFromJsonValue } from "../../native-text-recovery.ts";
import { skipWs } from "../scan-util.ts";

const OPEN = /^\[(tool_requests?|tool_calls?|function_calls?|tool_use|tool|function|call)\]/i;
const ARGS = /^\[(?:args|arguments|params|parameters|input)\]/i;
const CLOSE = /^\[(?:\/[\w]+|end(?:_[\w]+)?|end)\]/i;

function closeAfter(text: string, j: number): number {
  const k = skipWs(text, j);
  const m = CLOSE.exec(text.slice(k, k + 40));
  return m ? k + m[0].length : j;
}

export const bracketTags: Dialect = {
  id: "bracket-tags",
  triggers: ["[tool_request]", "[tool_call", "[tool]", "[function_call", "[tool_use]", "[function]", "[call]", "[tool_calls]"],
  starts: (text, i) => text[i] === "[" && OPEN.test(text.slice(i, i + 20)),
  scan(text, i) {
    const m = OPEN.exec(text.slice(i, i + 20));
    if (!m) return undefined;
    let j = skipWs(text, i + m[0].length);
    const candidates: Candidate[] = [];
    for (let n = 0; n < 32; n++) {
      const c = text[j];
      if (c === "{" || c === "[") {
        if (c === "[" && CLOSE.test(text.slice(j, j + 40))) break;
        const v = jsonValueAt(text, j);
        if (!v) return undefined;
        const calls = callsFromJsonValue(v.value, text.slice(i, v.end), v.repaired, true);
        if (calls.length === 0) return undefined;
        candidates.push(...calls);
        j = v.end;
      } else {
        const nm = /^([A-Za-z_][\w.\-]*)\s*/.exec(text.slice(j, j + 100));
        if (!nm) break;
        let k = j + nm[0].length;
        const a = ARGS.exec(text.slice(k, k + 20));
        if (a) k = skipWs(text, k + a[0].length);
        if (text[k] === "(") k = skipWs(text, k + 1);
        if (text[k] !== "{") return undefined;
        const v = jsonValueAt(text, k);
        if (!v) return undefined;
        candidates.push({ name: nm[1]!, args: { kind: "value", value: v.value }, raw: text.slice(i, v.end), repaired: v.repaired });
        j = v.end;
        if (text[j] === ")") j++;
      }
      const after = skipWs(text, j);
      if (text[after] === ",") j = skipWs(text, after + 1);
      else if (text[after] === "\n" || text.startsWith("[TOOL_CALLS]", after)) {
        const again = text.startsWith("[TOOL_CALLS]", after) ? skipWs(text, after + 12) : after;
        if (!/[A-Za-z_{]/.test(text[skipWs(text, again)] ?? "")) break;
        j = skipWs(text, again);
        if (!text.startsWith("[TOOL_CALLS]", after) && text[j] !== "{") break;
      } else break;
    }
    if (candidates.length === 0) return undefined;
    if (/^\[TOOL_CALLS\]/.test(m[0])) for (const c of candidates) c.dialect = "mistral";
    return { end: closeAfter(text, j), candidates, errors: [] };
  },
};
