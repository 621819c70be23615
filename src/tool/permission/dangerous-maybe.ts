/**
 * Lines the dangerous check cannot clear: a command able to do what dangerous.ts blocks, given a word whose value
 * is only known at run time (`rm -rf $X`, `find / $FLAG`, `sort "$OPT" f`), a computed program name next to a
 * critical path (`$X -rf /`), arguments fed by xargs (`… | xargs rm -rf`), or a line that did not parse but names
 * such a command. The policy never allows
 * these without a person: it asks in every mode, bypass included (the clear cases are denied by dangerous.ts).
 */
import { programName, unwrapSimple } from "./command-view.ts";
import { isCriticalPath, isDevicePath, isSystemWriteTarget } from "./paths.ts";
import { gitSubcommand } from "./safety-immune.ts";
import { msg, type Localized } from "../../i18n/i18n.ts";
import type { ShellParseResult, ShellScript, ShellWord, SimpleCommand } from "../shell/shell-types.ts";

/** Programs whose arguments decide whether they wreck the machine, where every computed word may be the fatal one. */
const DESTRUCTIVE = new Set([
  "rm", "dd", "shred", "wipe", "fdisk", "sfdisk", "cfdisk", "parted", "sgdisk", "gdisk", "blkdiscard", "chmod", "chown",
  "chgrp", "mv", "cp", "install", "ln", "tee", "truncate", "find", "kill", "crontab", "iptables", "ip6tables", "nft",
  "systemctl", "init", "telinit", "mke2fs", "mkswap", "wipefs", "sort", "uniq", "tree", "sed", "tar",
]);
/** Programs that write a file only through an option: a computed word that may become that option. */
const OPTION_WRITERS = new Set(["curl", "wget"]);
const GIT_OUTPUT_SUBS = new Set(["diff", "log", "show", "reflog", "whatchanged", "format-patch", "range-diff", "rev-list", "shortlog", "grep", "blame"]);
const MAX_DEPTH = 6;
const RESERVED = new Set(["do", "then", "else", "elif", "if", "while", "until", "!", "time", "{", "}"]);

/** Why the line cannot be cleared: English for the model, the user's language in the approval box. */
export function mayBeDangerous(parse: ShellParseResult, userHome?: string): Localized | undefined {
  if (!parse.ok) {
    for (const argv of parse.rough) {
      const name = programName(argv.find((w) => !RESERVED.has(w)) ?? "");
      if (DESTRUCTIVE.has(name) || OPTION_WRITERS.has(name) || name.includes("$")) {
        return msg("maybe.unparsed", { name });
      }
    }
    return undefined;
  }
  return inScript(parse.script, userHome, 0);
}

function inScript(script: ShellScript, userHome: string | undefined, depth: number): Localized | undefined {
  if (depth > MAX_DEPTH) return undefined;
  for (const cmd of script.commands) {
    const r = inCommand(cmd, userHome, depth);
    if (r) return r;
  }
  return undefined;
}

const computed = (w: ShellWord) => w.expansion || w.substitutions.length > 0;
/**
 * The whole word may turn out to be a flag or an absolute path: the run-time part comes first, or an unquoted
 * expansion anywhere may split it into several words (`x$A` with A=" -o /etc/passwd").
 */
const leadsComputed = (w: ShellWord) => computed(w) && (/^["']*[$`]/.test(w.raw) || hasUnquotedExpansion(w.raw));

function hasUnquotedExpansion(raw: string): boolean {
  let double = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === "\\") i++;
    else if (c === "'" && !double) {
      const end = raw.indexOf("'", i + 1);
      if (end < 0) return true;
      i = end;
    } else if (c === '"') double = !double;
    else if (!double && c === "`") return true;
    else if (!double && c === "$" && raw[i + 1] !== "'" && raw[i + 1] !== '"' && i + 1 < raw.length) return true;
  }
  return false;
}

function inCommand(cmd: SimpleCommand, userHome: string | undefined, depth: number): Localized | undefined {
  const first = cmd.words[0];
  if (!first) return undefined;
  const targets = cmd.argv.slice(1).filter((a) => isCriticalPath(a, userHome) || isDevicePath(a) || isSystemWriteTarget(a));
  if (computed(first) && targets.length > 0) return msg("maybe.computedProgram", { target: targets[0] ?? "" });
  const u = unwrapSimple(cmd);
  const names = u.views.map((v) => v.name);
  const fed = u.views.find((v) => v.via.includes("xargs") && (DESTRUCTIVE.has(v.name) || OPTION_WRITERS.has(v.name)));
  if (fed) return msg("maybe.xargs", { name: fed.name });
  const risky = cmd.words.slice(1).find(computed);
  if (risky) {
    const d = names.find((n) => DESTRUCTIVE.has(n) || n.startsWith("mkfs"));
    if (d) return msg("maybe.computedArgWord", { name: d, word: risky.raw });
    const leading = cmd.words.slice(1).find(leadsComputed);
    const w = names.find((n) => OPTION_WRITERS.has(n));
    if (w && leading) return msg("maybe.computedArgWord", { name: w, word: leading.raw });
    const git = u.views.find((v) => v.name === "git" && GIT_OUTPUT_SUBS.has(gitSubcommand(v.args).sub));
    if (git && leading) return msg("maybe.computedArgWord", { name: "git", word: leading.raw });
  }
  for (const s of u.scripts) {
    const r = inScript(s, userHome, depth + 1);
    if (r) return r;
  }
  for (const argv of u.rough) {
    const name = programName(argv[0] ?? "");
    if ((DESTRUCTIVE.has(name) || OPTION_WRITERS.has(name)) && argv.some((a) => a.includes("$") || a.includes("`"))) {
      return msg("maybe.computedArg", { name });
    }
  }
  return undefined;
}
