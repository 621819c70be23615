/**
 * Is an `exec` command read-only, so it may run without asking? It fails closed: a line is read-only only when
 * it parses, every word of every command is a plain literal after quote removal, and every command is a known
 * read-only program given only flags from its allowlist (read-only-commands.ts, git-read-only.ts).
 *
 * Not read-only: `;`, newlines, `&&`, `||`, `&`, subshells, groups, loops, functions, heredocs, env prefixes
 * (`LD_PRELOAD=… ls`); any `$` expansion (`$X`, `${U}`, `$IFS`, `$((…))`), `$(…)`, backticks, `<(…)`; unquoted
 * glob characters (`*?[…]`: a file named `--output=x` would become a flag) and brace forms (`{a,b}`, `{a..b}`);
 * control characters anywhere (`\r` is a word character to bash, a blank to a careless reader); array subscripts
 * holding `$` or backticks (bash evaluates them in `test -v`, `printf -v`, …); paths into /proc and /dev (but
 * /dev/null); recursive content searches (`grep -r`, `rg`) outside the project (`~`, `/`, `..`); every
 * redirection except fd duplication (`2>&1`) and writes to /dev/null. A pipe is fine when every stage is
 * read-only on its own. Program names must be bare (`./ls` could be anything).
 */
import type { ShellFeature, ShellParseResult, ShellWord, SimpleCommand } from "../shell/shell-types.ts";
import { readOnlyGit } from "./git-read-only.ts";
import { READ_ONLY_COMMANDS } from "./read-only-commands.ts";
import { msg, type Localized, type MessageKey } from "../../i18n/i18n.ts";

/** `reason` is a message: English for the model, the user's language in the approval box (i18n render). */
export type ReadOnlyVerdict = { readOnly: true } | { readOnly: false; reason: Localized };

const BLOCKING_FEATURES: ReadonlyArray<[ShellFeature, MessageKey]> = [
  ["sequence", "ro.sequence"],
  ["and", "ro.and"],
  ["or", "ro.or"],
  ["background", "ro.background"],
  ["substitution", "ro.substitution"],
  ["process-substitution", "ro.processSubstitution"],
  ["subshell", "ro.subshell"],
  ["group", "ro.group"],
  ["compound", "ro.compound"],
  ["function", "ro.function"],
  ["heredoc", "ro.heredoc"],
  ["arithmetic", "ro.arithmetic"],
];

/**
 * C0 controls but tab, DEL, C1 controls, and the invisible or reordering characters that make an approval
 * prompt show something else than what runs (zero-width, bidi overrides, line/paragraph separators).
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** The raw command line too: `$'\r'` decodes to a control character only in the word values. */
export function readOnlyVerdict(parse: ShellParseResult, line?: string): ReadOnlyVerdict {
  if (line !== undefined && CONTROL.test(line.replace(/\n+$/, ""))) return { readOnly: false, reason: msg("ro.control") };
  if (!parse.ok) return { readOnly: false, reason: msg("perm.unparsed", { error: parse.error }) };
  const { script } = parse;
  for (const [feature, reason] of BLOCKING_FEATURES) {
    if (script.features.has(feature)) return { readOnly: false, reason: msg(reason) };
  }
  if (script.commands.length === 0) return { readOnly: false, reason: msg("ro.empty") };
  for (const cmd of script.commands) {
    const r = commandVerdict(cmd);
    if (!r.readOnly) return r;
  }
  return { readOnly: true };
}

/** Why a word is not a plain literal after quote removal, or undefined when it is. */
export function nonLiteral(w: ShellWord): Localized | undefined {
  if (w.expansion) return msg("ro.word.expansion", { word: w.raw });
  if (w.substitutions.length > 0) return msg("ro.word.substitution", { word: w.raw });
  if (CONTROL.test(w.value)) return msg("ro.word.control", { word: JSON.stringify(w.raw) });
  if (/[*?]/.test(w.bare) || /\[.*\]/.test(w.bare)) return msg("ro.word.glob", { word: w.raw });
  // Bash brace-expands `{…,…}` and `{a..b}` when the braces and the comma or `..` are unquoted; `HEAD@{1}` stays.
  if (/\{.*(,|\.\.).*\}/.test(w.bare)) return msg("ro.word.brace", { word: w.raw });
  if (/\[[^\]]*[$`]/.test(w.value)) return msg("ro.word.subscript", { word: w.raw });
  if (procOrDevice(w.value)) return msg("ro.word.procDev", { word: w.raw });
  return undefined;
}

const HARMLESS_PROC = /^\/proc\/(cpuinfo|meminfo|version|loadavg|uptime|stat|mounts|filesystems|partitions|swaps)$/;

/** `/proc/<pid>/environ` holds chatcli's own keys; `/dev/fd/../..` and `../../proc` reach the same place. */
function procOrDevice(value: string): boolean {
  for (const part of value.split(/[=:,]/)) {
    const p = part.replace(/\/+/g, "/");
    if (HARMLESS_PROC.test(p) || p === "/dev/null") continue;
    if (/^\/proc(\/|$)/.test(p) || /^\/dev\//.test(p)) return true;
    if (/(^|\/)\.\.(\/|$)/.test(p) && /(^|\/)proc(\/|$)/.test(p)) return true;
  }
  return false;
}

function commandVerdict(cmd: SimpleCommand): ReadOnlyVerdict {
  if (cmd.assignments.length > 0) return { readOnly: false, reason: msg("ro.assignments") };
  for (const r of cmd.redirects) {
    const t = r.target.value;
    const bad = nonLiteral(r.target);
    if (bad) return { readOnly: false, reason: bad };
    const dup = (r.op === ">&" || r.op === "<&") && /^(\d+|-)$/.test(t);
    const devNull = (r.op === ">" || r.op === ">>" || r.op === "&>" || r.op === "&>>" || r.op === ">|") && t === "/dev/null";
    if (!dup && !devNull) return { readOnly: false, reason: msg(r.op === "<" ? "ro.redirectIn" : "ro.redirectOut", { path: t }) };
  }
  const first = cmd.words[0];
  if (!first) return { readOnly: false, reason: msg("ro.empty") };
  for (const w of cmd.words) {
    const bad = nonLiteral(w);
    // `[ … ]`: the brackets are the command, not a glob.
    if (bad && !(cmd.argv[0] === "[" && (w === first || (w.value === "]" && w === cmd.words[cmd.words.length - 1])))) {
      return { readOnly: false, reason: bad };
    }
  }
  if (first.value.includes("/")) return { readOnly: false, reason: msg("ro.unknownProgram", { name: first.value }) };
  const name = first.value;
  const args = cmd.argv.slice(1);
  const v = isReadOnlyProgram(name, args);
  return v === true ? { readOnly: true } : { readOnly: false, reason: msg("ro.notKnown", { command: [name, ...args].join(" "), detail: v }) };
}

/** true, or why not. */
export function isReadOnlyProgram(name: string, args: readonly string[]): true | Localized {
  if (name === "git") return readOnlyGit(args);
  const check = Object.hasOwn(READ_ONLY_COMMANDS, name) ? READ_ONLY_COMMANDS[name] : undefined;
  return check ? check(args, name) : msg("ro.unknownProgram", { name });
}
