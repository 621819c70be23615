/**
 * Allowlists of command-line flags, read the way the programs read them: short flags clustered (`-rn`), short
 * values attached or separate (`-n5`, `-n 5`, `-O'x'`), GNU long options matched by exact name or else by unique
 * prefix the way getopt_long does (`--outp` is `--output`), values after `=` or in the next word. A spec lists
 * what a command may be given to stay read-only; `forbid` names the real options that are not allowed so that an
 * abbreviation is resolved against them too (`--o` must not count as an allowed `--only-matching` when the program
 * also knows `--output`). Anything not understood is refused: the caller treats the command as not read-only.
 */
import { msg, type Localized } from "../../i18n/i18n.ts";

export interface FlagSpec {
  /** Short flags without a value. */
  short?: string;
  /** Short flags that take a value, attached (`-n5`) or in the next word (`-n 5`). */
  shortValue?: string;
  /** Short flags whose value is optional and only ever attached (`git status -uno`). */
  shortOptional?: string;
  /**
   * Long options without the dashes. `name` takes no value, `name=` requires one (`--name=v` or `--name v`),
   * `name=?` takes an optional value that must be attached.
   */
  long?: readonly string[];
  /** Real long options that make the command not read-only (for prefix resolution and the reason). */
  forbid?: readonly string[];
  /** `-5` style numeric flags (`head -5`, `git log -3`). */
  numeric?: boolean;
  /** Validates one option's value (`--format=…`); false refuses. */
  value?: (option: string, value: string) => boolean;
  /** Options stop at the first operand (git, POSIX utilities with POSIXLY_CORRECT); default: GNU permutation. */
  stopAtOperand?: boolean;
}

export type FlagCheck = { ok: true; operands: string[]; options: string[] } | { ok: false; reason: Localized };

interface LongDef {
  name: string;
  arg: "none" | "required" | "optional";
}

function parseLong(entries: readonly string[]): LongDef[] {
  return entries.map((e) =>
    e.endsWith("=?") ? { name: e.slice(0, -2), arg: "optional" } : e.endsWith("=") ? { name: e.slice(0, -1), arg: "required" } : { name: e, arg: "none" },
  );
}

export type LongMatch<T extends { name: string }> = { kind: "exact" | "prefix"; def: T } | { kind: "ambiguous"; candidates: T[] } | { kind: "unknown" };

/** getopt_long's lookup: an exact name wins, else a unique prefix; several prefixes are ambiguous. */
export function matchLongOption<T extends { name: string }>(written: string, defs: readonly T[]): LongMatch<T> {
  const exact = defs.find((d) => d.name === written);
  if (exact) return { kind: "exact", def: exact };
  if (written === "") return { kind: "unknown" };
  const candidates = defs.filter((d) => d.name.startsWith(written));
  const names = new Set(candidates.map((c) => c.name));
  if (names.size === 1) return { kind: "prefix", def: candidates[0] as T };
  return names.size === 0 ? { kind: "unknown" } : { kind: "ambiguous", candidates };
}

/** Resolves `--outp` against a list of long option names (`name`, `name=`, `name=?`); undefined when unknown or ambiguous. */
export function resolveLong(written: string, entries: readonly string[]): string | undefined {
  const m = matchLongOption(written, parseLong(entries));
  return m.kind === "exact" || m.kind === "prefix" ? m.def.name : undefined;
}

/** Checks `args` against `spec`; returns the operands (and the canonical options seen) when every flag is allowed. */
export function checkFlags(args: readonly string[], spec: FlagSpec): FlagCheck {
  const allowed = parseLong(spec.long ?? []);
  const forbidden = parseLong(spec.forbid ?? []).map((d) => ({ ...d, forbidden: true }));
  const defs = [...allowed.map((d) => ({ ...d, forbidden: false })), ...forbidden];
  const operands: string[] = [];
  const options: string[] = [];
  const valueOk = (opt: string, v: string) => spec.value === undefined || spec.value(opt, v);
  let onlyOperands = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (onlyOperands || a === "-" || !a.startsWith("-")) {
      operands.push(a);
      if (spec.stopAtOperand) onlyOperands = true;
      continue;
    }
    if (a === "--") {
      onlyOperands = true;
      continue;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const written = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const m = matchLongOption(written, defs);
      if (m.kind === "unknown") return { ok: false, reason: msg("ro.flag.unknown", { option: `--${written}` }) };
      if (m.kind === "ambiguous") return { ok: false, reason: msg("ro.flag.ambiguous", { option: `--${written}` }) };
      const d = m.def;
      if (d.forbidden) return { ok: false, reason: msg("ro.flag.option", { option: `--${d.name}` }) };
      options.push(`--${d.name}`);
      if (d.arg === "none") {
        if (eq >= 0) return { ok: false, reason: msg("ro.flag.noValue", { option: `--${d.name}` }) };
      } else if (eq >= 0) {
        if (!valueOk(`--${d.name}`, a.slice(eq + 1))) return { ok: false, reason: msg("ro.flag.value", { option: `--${d.name}` }) };
      } else if (d.arg === "required") {
        const v = args[++i];
        if (v === undefined || !valueOk(`--${d.name}`, v)) return { ok: false, reason: msg("ro.flag.value", { option: `--${d.name}` }) };
      }
      continue;
    }
    if (spec.numeric && /^-\d+$/.test(a)) {
      options.push(a);
      continue;
    }
    // A cluster of short flags: each letter must be known; a value-taking one ends the cluster.
    for (let k = 1; k < a.length; k++) {
      const c = a[k] as string;
      if (spec.short?.includes(c)) {
        options.push(`-${c}`);
        continue;
      }
      if (spec.shortValue?.includes(c) || spec.shortOptional?.includes(c)) {
        options.push(`-${c}`);
        const attached = a.slice(k + 1);
        if (attached !== "") {
          if (!valueOk(`-${c}`, attached)) return { ok: false, reason: msg("ro.flag.value", { option: `-${c}` }) };
        } else if (spec.shortValue?.includes(c)) {
          const v = args[++i];
          if (v === undefined || !valueOk(`-${c}`, v)) return { ok: false, reason: msg("ro.flag.value", { option: `-${c}` }) };
        }
        break;
      }
      return { ok: false, reason: msg("ro.flag.option", { option: `-${c}` }) };
    }
  }
  return { ok: true, operands, options };
}
