/**
 * MeetKai Functionary: the v3 recipient form `>>>read\n{"path":"a"}` (at a line start; `>>>all` carries
 * prose, whose marker alone leaves), and v2's `<|from|>assistant\n<|recipient|>read\n<|content|>{…}`.
 */
import { jsonValueAt, type Dialect } from "./dialect.ts";
import { skipWs } from "../scan-util.ts";

/** A JSON object at `j` (functionary's arguments are always one). */
function jsonAt(text: string, j: number): { value: unknown; end: number; repaired: boolean } | undefined {
  return text[j] === "{" ? jsonValueAt(text, j) : undefined;
}

export const functionary: Dialect = {
  id: "functionary",
  triggers: [">>>", "<|recipient|>", "<|from|>"],
  starts: (text, i, lineStart) => (text.startsWith(">>>", i) && (lineStart || text[i - 1] === "}")) || (text[i] === "<" && text[i + 1] === "|"),
  scan(text, i) {
    if (text.startsWith("<|from|>", i)) {
      const nl = text.indexOf("\n", i);
      return { end: nl < 0 ? text.length : nl + 1, candidates: [], errors: [] };
    }
    const v2 = /^<\|recipient\|>\s*([A-Za-z_][\w.\-]*)\s*(?:<\|content\|>)?/.exec(text.slice(i, i + 120));
    const v3 = /^>>>\s*([A-Za-z_][\w.\-]*)[ \t]*\r?\n?/.exec(text.slice(i, i + 120));
    const m = v2 ?? v3;
    if (!m) return undefined;
    const at = i + m[0].length;
    if (m[1] === "all") return { end: at, candidates: [], errors: [] };
    const j = jsonAt(text, skipWs(text, at));
    if (!j) return undefined;
    return { end: j.end, candidates: [{ name: m[1]!, args: { kind: "value", value: j.value }, raw: text.slice(i, j.end), repaired: j.repaired }], errors: [] };
  },
};
