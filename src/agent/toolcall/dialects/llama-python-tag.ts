/**
 * Llama 3.x `<|python_tag|>` followed by built-in-tool style calls (`brave_search.call(query="…")`,
 * `read.call(path="a")`, `read(path="a")`, several separated by `;`), and the end-of-message tokens
 * (`<|eom_id|>`, `<|eot_id|>`) those replies end with. A JSON body after the tag is left to the generic
 * marker + JSON scan.
 */
import type { Candidate } from "../candidate.ts";
import type { Dialect } from "./dialect.ts";
import { readPyCall } from "./python-args.ts";
import { skipWs } from "../scan-util.ts";

const TAG = "<|python_tag|>";
const END_TOKENS = ["<|eom_id|>", "<|eot_id|>"];

export const llamaPythonTag: Dialect = {
  id: "llama-python-tag",
  triggers: [TAG, "<|eom_id|>", "<|eot_id|>"],
  starts: (text, i) => text[i] === "<" && text[i + 1] === "|",
  scan(text, i) {
    const endTok = END_TOKENS.find((t) => text.startsWith(t, i));
    if (endTok) return { end: i + endTok.length, candidates: [], errors: [] };
    if (!text.startsWith(TAG, i)) return undefined;
    let j = skipWs(text, i + TAG.length);
    const candidates: Candidate[] = [];
    for (;;) {
      const c = readPyCall(text, j);
      if (!c) break;
      candidates.push({ name: c.name, args: { kind: "value", value: c.args }, raw: text.slice(i, c.end), repaired: false });
      j = skipWs(text, c.end);
      if (text[j] !== ";") break;
      j = skipWs(text, j + 1);
    }
    if (candidates.length === 0) return undefined;
    return { end: j, candidates, errors: [] };
  },
};
