/**
 * Recognizes tool calls in JSON the model printed as plain text: the shapes of native tool-call APIs
 * (OpenAI `{"type":"function","function":{…}}`, `{"tool_calls":[…]}`, Anthropic `tool_use`, Gemini
 * `functionCall`), hermes/Llama `{"name":…,"arguments"|"parameters":…}`, `{"tool":…,"args":…}`,
 * `{"tool_call":…}`, arrays of those (Mistral `[TOOL_CALLS][…]`), and the seed's implicit @coder
 * `{"cmd":"read","args":{…}}`.
 *
 * To keep ordinary JSON in an answer (a package.json, an API response) from turning into calls, a shape only
 * counts when its keys are all call keys. `loose` (inside a tool-call tag or after a tool marker) also accepts
 * a bare `{"name":"x"}`.
 */
import type { Candidate } from "./toolcall/candidate.ts";
import { isPlainObject } from "./toolcall/lenient-json.ts";
import { CODER_SUBCOMMANDS } from "./toolcall/coder-alias.ts";
import { isBareCallName, looksLikeArgsOf } from "./toolcall/dialects/known-names.ts";

const NAME_RE = /^@?[A-Za-z_][\w.\-:]{0,63}$/;
const ARG_KEYS = ["arguments", "args", "parameters", "input", "params"] as const;
const CALL_KEYS = new Set<string>(["name", "tool", "tool_name", "type", "id", "index", "call_id", "tool_call_id", ...ARG_KEYS]);

export function isToolName(v: unknown): v is string {
  return typeof v === "string" && NAME_RE.test(v.trim());
}

/** The calls a parsed JSON value describes; [] when it is not (entirely) tool calls. */
export function callsFromJsonValue(v: unknown, raw: string, repaired: boolean, loose: boolean): Candidate[] {
  if (Array.isArray(v)) {
    if (v.length === 0 || v.length > 64) return [];
    const all: Candidate[] = [];
    for (const item of v) {
      const c = callsFromJsonValue(item, raw, repaired, loose);
      if (c.length === 0) return [];
      all.push(...c);
    }
    return all;
  }
  if (!isPlainObject(v)) return [];
  return callFromObject(v, raw, repaired, loose);
}

function argsOf(o: Record<string, unknown>): { present: boolean; value: unknown } {
  for (const k of ARG_KEYS) if (k in o) return { present: true, value: o[k] };
  return { present: false, value: undefined };
}

function make(name: string, args: { present: boolean; value: unknown }, raw: string, repaired: boolean): Candidate {
  return {
    name: name.trim(),
    args: args.present && args.value !== null && args.value !== undefined ? { kind: "value", value: args.value } : { kind: "none" },
    raw,
    repaired,
  };
}

/** Search results and API errors look a bit like calls; the seed rejected them explicitly. */
function looksLikeData(o: Record<string, unknown>): boolean {
  return "url" in o || ("title" in o && "snippet" in o) || ("type" in o && "error" in o);
}

function callFromObject(o: Record<string, unknown>, raw: string, repaired: boolean, loose: boolean): Candidate[] {
  if (looksLikeData(o)) return [];
  const keys = Object.keys(o);

  // {"tool_calls":[…]} (an OpenAI message printed whole) or {"function_calls":[…]}
  for (const k of ["tool_calls", "function_calls"]) {
    const list = o[k];
    if (Array.isArray(list) && keys.every((x) => x === k || x === "role" || x === "content" || x === "type")) {
      return callsFromJsonValue(list, raw, repaired, true);
    }
  }
  // {"tool_call": {...}} or {"tool_call": "read", "args": {...}}
  if ("tool_call" in o) {
    const inner = o["tool_call"];
    if (isPlainObject(inner) && keys.length === 1) return callFromObject(inner, raw, repaired, true);
    if (isToolName(inner) && keys.every((x) => x === "tool_call" || CALL_KEYS.has(x))) return [make(inner, argsOf(o), raw, repaired)];
    return [];
  }
  // OpenAI {"type":"function","function":{"name","arguments"}} / {"function":{…}} / Gemini {"functionCall":{…}}
  for (const k of ["function", "functionCall", "function_call"]) {
    const fn = o[k];
    if (isPlainObject(fn) && keys.every((x) => x === k || CALL_KEYS.has(x))) {
      const name = fn["name"];
      if (!isToolName(name)) return [];
      return [make(name, argsOf(fn), raw, repaired)];
    }
  }
  // {"function": "read", "arguments": {…}}: the name under the `function` key
  const fnName = o["function"];
  if (typeof fnName === "string" && isToolName(fnName) && keys.every((x) => x === "function" || CALL_KEYS.has(x))) {
    return [{ ...make(fnName, argsOf(o), raw, repaired), dialect: "json-key-alias" }];
  }
  // {"read": {"path": "a"}}: the tool name as the only key (names of our tools and their aliases only)
  const only = keys.length === 1 ? keys[0]! : undefined;
  const inner = only ? o[only] : undefined;
  if (only && isBareCallName(only) && isPlainObject(inner) && looksLikeArgsOf(only, inner)) {
    return [{ ...make(only, { present: true, value: o[only] }, raw, repaired), dialect: "json-name-key" }];
  }
  if (!keys.every((x) => CALL_KEYS.has(x))) return coderShape(o, raw, repaired);
  const args = argsOf(o);
  if (args.present && args.value !== null && args.value !== undefined && !isPlainObject(args.value) && typeof args.value !== "string") {
    return [];
  }
  for (const k of ["name", "tool", "tool_name"]) {
    const name = o[k];
    if (!isToolName(name)) continue;
    if (args.present || loose || k !== "name") return [make(name, args, raw, repaired)];
  }
  return [];
}

/** The seed's implicit @coder: {"cmd":<subcommand>,"args":…} (not the @websearch shape: search + query). */
function coderShape(o: Record<string, unknown>, raw: string, repaired: boolean): Candidate[] {
  const keys = Object.keys(o);
  if (!keys.every((k) => ["cmd", "args", "flags", "argv"].includes(k))) return [];
  const cmd = o["cmd"];
  if (typeof cmd === "string") {
    if (!CODER_SUBCOMMANDS.includes(cmd.trim().toLowerCase()) || !("args" in o)) return [];
    const inner = o["args"];
    if (cmd.trim().toLowerCase() === "search" && isPlainObject(inner) && "query" in inner) return [];
    return [{ name: "@coder", args: { kind: "value", value: o }, raw, repaired }];
  }
  const argv = o["argv"];
  if (Array.isArray(argv) && typeof argv[0] === "string" && CODER_SUBCOMMANDS.includes(argv[0])) {
    return [{ name: "@coder", args: { kind: "value", value: o }, raw, repaired }];
  }
  return [];
}
