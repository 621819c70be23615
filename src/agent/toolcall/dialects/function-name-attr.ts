/**
 * `<function name="read">{"path":"a"}</function>` (Llama 3.2 / Hermes-style fine-tunes) and its parameter
 * children `<function name="read"><parameter name="path">a</parameter></function>`; the closer may be missing.
 */
import type { Dialect } from "./dialect.ts";
import { parseChildren } from "../child-elements.ts";
import { skipWs } from "../scan-util.ts";

const HEAD = /^<function\s+name\s*=\s*["']?([A-Za-z_@][\w.\-:]*)["']?\s*>/i;

export const functionNameAttr: Dialect = {
  id: "function-name-attr",
  triggers: ["<function "],
  starts: (text, i) => text[i] === "<" && /^<function\s/i.test(text.slice(i, i + 10)),
  scan(text, i) {
    const m = HEAD.exec(text.slice(i, i + 200));
    if (!m) return undefined;
    const bodyStart = i + m[0].length;
    const close = text.toLowerCase().indexOf("</function>", bodyStart);
    const bodyEnd = close < 0 ? text.length : close;
    const end = close < 0 ? text.length : close + "</function>".length;
    const raw = text.slice(i, end);
    const body = text.slice(skipWs(text, bodyStart), bodyEnd).trim();
    if (body.startsWith("<")) {
      const ch = parseChildren(body);
      return { end, candidates: [{ name: m[1]!, args: { kind: "value", value: ch.argsObj }, raw, repaired: close < 0 }], errors: [] };
    }
    return { end, candidates: [{ name: m[1]!, args: body ? { kind: "raw", text: body } : { kind: "none" }, raw, repaired: close < 0 }], errors: [] };
  },
};
