/**
 * The option parser of `chatcli mcp …` (the shapes of `claude mcp add`: `add [options] NAME -- command args…`,
 * `add --transport http NAME URL`, `-e KEY=VAL`, `-H "Header: value"`, options repeated, `--opt=value`).
 * Hand-written because a stdio server's own arguments (`npx -y pkg --flag`) must pass through untouched: once the
 * command is named (or after `--`) every further word is the server's. Usage errors throw UsageError (exit 2).
 */
import { t } from "../../i18n/i18n.ts";
import { UsageError } from "../args.ts";

export interface OptionSpec {
  /** Long name without dashes. */
  name: string;
  short?: string;
  /** Takes a value (`--x v`, `--x=v`); repeatable ones collect every value. */
  value?: boolean;
  repeat?: boolean;
}

export interface ParsedOptions {
  opts: Map<string, string[]>;
  flags: Set<string>;
  positionals: string[];
  /** Words after the point where parsing stopped (`--`, or `stopAfter` said so), verbatim. */
  rest: string[];
  /** `--` was given. */
  dashDash: boolean;
}

/**
 * `stopAfter(positionals, soFar)`: called after each positional with the options read so far; true = every later
 * word is the caller's, verbatim.
 */
export function parseOptions(words: string[], spec: OptionSpec[], stopAfter: (positionals: string[], soFar: ParsedOptions) => boolean = () => false): ParsedOptions {
  const out: ParsedOptions = { opts: new Map(), flags: new Set(), positionals: [], rest: [], dashDash: false };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === "--") {
      out.dashDash = true;
      out.rest = words.slice(i + 1);
      return out;
    }
    if (w.startsWith("-") && w !== "-") {
      const eq = w.startsWith("--") ? w.indexOf("=") : -1;
      const key = eq > 0 ? w.slice(2, eq) : w.startsWith("--") ? w.slice(2) : w.slice(1);
      const opt = spec.find((s) => (w.startsWith("--") ? s.name === key : s.short === key));
      if (!opt) throw new UsageError(t("mcp.unknownOption", { option: w }));
      if (!opt.value) {
        out.flags.add(opt.name);
        continue;
      }
      const value = eq > 0 ? w.slice(eq + 1) : words[++i];
      if (value === undefined) throw new UsageError(t("mcp.optionNeedsValue", { option: w }));
      const list = out.opts.get(opt.name) ?? [];
      if (!opt.repeat && list.length) throw new UsageError(t("mcp.optionTwice", { option: `--${opt.name}` }));
      out.opts.set(opt.name, [...list, value]);
      continue;
    }
    out.positionals.push(w);
    if (stopAfter(out.positionals, out)) {
      out.rest = words.slice(i + 1);
      return out;
    }
  }
  return out;
}

export const one = (p: ParsedOptions, name: string): string | undefined => p.opts.get(name)?.[0];

export function scopeOption(p: ParsedOptions): "user" | "project" | undefined {
  const s = one(p, "scope");
  if (s === undefined) return undefined;
  if (s === "user" || s === "project") return s;
  // Claude Code's `local` scope (private to one project) has no counterpart here.
  throw new UsageError(t("mcp.badScope", { scope: s }));
}

export function positiveInt(p: ParsedOptions, name: string): number | undefined {
  const v = one(p, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(t("mcp.badNumber", { option: `--${name}`, value: v }));
  return n;
}

/** `KEY=VAL` pairs (`-e`). */
export function envPairs(values: string[] | undefined): Record<string, string> | undefined {
  if (!values?.length) return undefined;
  const out: Record<string, string> = {};
  for (const v of values) {
    const eq = v.indexOf("=");
    const key = eq > 0 ? v.slice(0, eq) : "";
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new UsageError(t("mcp.badEnv", { value: v }));
    out[key] = v.slice(eq + 1);
  }
  return out;
}

/** `Name: value` pairs (`-H`). */
export function headerPairs(values: string[] | undefined): Record<string, string> | undefined {
  if (!values?.length) return undefined;
  const out: Record<string, string> = {};
  for (const v of values) {
    const colon = v.indexOf(":");
    const key = colon > 0 ? v.slice(0, colon).trim() : "";
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) throw new UsageError(t("mcp.badHeader", { value: v }));
    out[key] = v.slice(colon + 1).trim();
  }
  return out;
}

/** A comma- or space-separated list option, repeated or not (`--include-tools a,b --include-tools c`). */
export function listOption(p: ParsedOptions, name: string): string[] | undefined {
  const v = p.opts.get(name);
  if (!v?.length) return undefined;
  return v.flatMap((x) => x.split(/[\s,]+/)).filter(Boolean);
}
