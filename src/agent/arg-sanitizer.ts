/**
 * Turns a tool call's raw argument string into an object.
 *
 * Contract: every step is tried only when the input is not yet valid JSON, so a valid JSON object always comes
 * back exactly as JSON.parse reads it (spaces, `\"`, entities inside strings survive: the reference's flaw #9).
 * - "native": structured arguments from a provider. JSON.parse, then only structural repairs (trailing commas,
 *   trailing garbage, missing closing braces, raw control characters, invalid escapes). Never CLI-style fixes.
 * - "text": arguments the model typed into the text protocol. The seed's pipeline, adapted to JSON: entity
 *   unescape (only when the quotes themselves are escaped), CRLF → LF, JSON-escaped JSON, then a loose parse
 *   (single quotes, unquoted keys, unbalanced/unescaped quotes, line continuations and trailing backslashes
 *   outside strings). `--flag value` strings become objects. The CLI-only steps (bogus `\ `, space collapsing)
 *   live in toolcall/cli-args.ts and run only for the `@coder` alias.
 * Never throws.
 */
import { parseLenientJson, tryStrictJson, isPlainObject } from "./toolcall/lenient-json.ts";
import { decodeEntities, hasQuoteEntities } from "./toolcall/entities.ts";
import { argvToFlags, sanitizeCliArgs, splitCliArgs } from "./toolcall/cli-args.ts";

export type ArgSource = "text" | "native";

export interface SanitizedArgs {
  value: Record<string, unknown> | undefined;
  repaired: boolean;
  error?: string;
}

export function sanitizeToolArgs(raw: string, source: ArgSource): SanitizedArgs {
  try {
    return source === "native" ? sanitizeNative(raw) : sanitizeText(raw);
  } catch (e) {
    return { value: undefined, repaired: false, error: `could not read the arguments: ${String(e)}` };
  }
}

function ok(value: Record<string, unknown>, repaired: boolean): SanitizedArgs {
  return { value, repaired };
}

function notObject(v: unknown): SanitizedArgs {
  const kind = Array.isArray(v) ? "an array" : v === null ? "null" : `a ${typeof v}`;
  return { value: undefined, repaired: false, error: `arguments must be a JSON object, got ${kind}` };
}

/** A JSON value that is a string holding JSON (double-encoded arguments). */
function unwrapEncoded(v: unknown, source: ArgSource, depth: number): SanitizedArgs {
  if (isPlainObject(v)) return ok(v, depth > 0);
  if (typeof v === "string" && depth < 2) {
    const t = v.trim();
    if (t === "") return ok({}, true);
    if (t.startsWith("{")) {
      const inner = tryStrictJson(t);
      if (inner.ok) return unwrapEncoded(inner.value, source, depth + 1);
      const r = parseLenientJson(t, source === "native" ? "structural" : "loose");
      if (r.ok && isPlainObject(r.value)) return ok(r.value, true);
    }
  }
  return notObject(v);
}

function sanitizeNative(raw: string): SanitizedArgs {
  const s = raw.trim();
  if (s === "") return ok({}, false);
  const strict = tryStrictJson(s);
  if (strict.ok) return unwrapEncoded(strict.value, "native", 0);
  const r = parseLenientJson(s, "structural");
  if (!r.ok) return { value: undefined, repaired: false, error: `arguments are not valid JSON (${r.error})` };
  const v = unwrapEncoded(r.value, "native", 1);
  return v.value ? ok(v.value, true) : v;
}

function sanitizeText(raw: string): SanitizedArgs {
  let s = raw.trim();
  if (s === "") return ok({}, false);
  const strict = tryStrictJson(s);
  if (strict.ok) return unwrapEncoded(strict.value, "text", 0);

  // 1. entity unescape, only when the structure itself was escaped
  if (hasQuoteEntities(s)) {
    s = decodeEntities(s).trim();
    const r = tryStrictJson(s);
    if (r.ok) return withRepair(unwrapEncoded(r.value, "text", 0));
  }
  // 2. CRLF / CR → LF
  s = s.replace(/\r\n?/g, "\n");
  // 3b. JSON that was itself escaped as a string: {\"path\":\"a\"} or "{\"path\":\"a\"}"
  for (let round = 0; round < 2 && /^"?\{\s*\\"/.test(s); round++) {
    let t = s;
    if (t.startsWith('"') && t.endsWith('"') && t.length >= 2) t = t.slice(1, -1);
    t = t.replace(/\\(["\\])/g, "$1");
    const r = tryStrictJson(t);
    if (r.ok) return withRepair(unwrapEncoded(r.value, "text", 0));
    s = t;
  }
  // a leading label some models add: `args: {...}`, `json {...}`
  const labelled = /^(?:args|arguments|json|parameters)\s*[:=]?\s*(?=[{[])/i.exec(s);
  if (labelled) s = s.slice(labelled[0].length);

  if (s.startsWith("{") || s.startsWith("[")) {
    const r = parseLenientJson(s, "loose");
    if (!r.ok) return { value: undefined, repaired: false, error: `arguments are not valid JSON (${r.error})` };
    if (!isPlainObject(r.value)) return notObject(r.value);
    return ok(r.value, true);
  }
  // `--path a.ts --start 3`: a flag string
  if (/^--?[A-Za-z]/.test(s)) {
    const { flags, positional } = argvToFlags(splitCliArgs(sanitizeCliArgs(s)));
    if (positional.length === 0 && Object.keys(flags).length > 0) return ok(flags, true);
  }
  return { value: undefined, repaired: false, error: "arguments are not a JSON object" };
}

function withRepair(r: SanitizedArgs): SanitizedArgs {
  return r.value ? { value: r.value, repaired: true } : r;
}
