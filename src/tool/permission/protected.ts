/**
 * Protected paths: chatcli's own configuration (`~/.chatcli/**` or CHATCLI_HOME, `<project>/.chatcli/**`), git's
 * (`.git/**`: config and hooks run code), shell rc files, credential stores and system paths. A write or edit there,
 * or an exec whose words name such a path, asks in EVERY permission mode (bypass and accept-edits included), and an
 * "always" answer to it is never persisted, so the model can never change chatcli's settings or policy on its own.
 *
 * For exec the check is on words, not on what the command does with them; every word of every simple command (after
 * quote removal, also behind sudo/env/xargs/`bash -c`, in redirections and assignments) that names a protected
 * path asks. A word that is not a plain literal counts when its literal parts could form a protected name:
 * `$HOME/.chatcli/x`, `.ch*`, `.g?t/config`, `{.chat,x}cli`. Segments that are wholly unknown (`$DIR`, `*`) are
 * not enough on their own, or every `cd $DIR` would ask.
 */
import { posix } from "node:path";
import type { ShellParseResult, ShellScript, SimpleCommand } from "../shell/shell-types.ts";
import { expandBraces, unwrapArgv, unwrapScript, type Unwrapped } from "./command-view.ts";
import { isSystemPath } from "./paths.ts";
import { realpathLenient } from "../workspace.ts";
import { segmentsOf, segmentCouldBe, type WordSegment } from "./word-pattern.ts";
import { msg, type Localized } from "../../i18n/i18n.ts";

export interface ProtectedContext {
  /** chatcli's home (CHATCLI_HOME or ~/.chatcli). */
  chatcliHome: string;
  projectRoot: string;
  userHome: string;
  /**
   * The command passed the fail-closed read-only check: it may then look inside `.git` and read plain paths in
   * chatcli's data directories (saved sessions, their tool-results, compaction archives, logs) without asking;
   * chatcli's configuration (settings, policy, contexts), rc files and credentials still ask.
   */
  readOnly?: boolean;
}

/** Under chatcli's home: what a read-only command may look at (the model is pointed at saved tool output there). */
const DATA_DIRS = ["sessions", "compaction", "logs"];

/** Directory names whose contents are protected wherever they sit. */
const PROTECTED_DIRS = [".chatcli", ".git", ".ssh", ".gnupg", ".aws", ".azure", ".kube", ".password-store", ".docker"];
/** File names protected wherever they sit: shell startup files and credential files. */
const PROTECTED_FILES = [
  ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin",
  ".zlogout", ".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".logout", ".inputrc", ".xprofile", ".xinitrc",
  ".netrc", ".git-credentials", ".gitconfig", ".pgpass", ".npmrc", ".pypirc",
];
const NAMES = [...PROTECTED_DIRS, ...PROTECTED_FILES];
const MAX_DEPTH = 6;

/** Why an absolute path (already resolved through symlinks) is protected, or undefined. */
export function protectedPath(abs: string, ctx: ProtectedContext): Localized | undefined {
  const p = posix.normalize(abs);
  for (const home of homeForms(ctx.chatcliHome)) if (under(p, home)) return msg("protect.chatcli");
  if (isSystemPath(p)) return msg("protect.system");
  const parts = p.split("/");
  for (const seg of parts) {
    if (seg === ".chatcli") return msg("protect.chatcli");
    if (seg === ".git") return msg("protect.git");
  }
  const name = parts.find((s) => PROTECTED_DIRS.includes(s) || PROTECTED_FILES.includes(s));
  if (name) return msg("protect.file", { name });
  const i = parts.indexOf(".config");
  if (i >= 0 && (parts[i + 1] === "gcloud" || parts[i + 1] === "gh" || parts[i + 1] === "git")) return msg("protect.file", { name: `.config/${parts[i + 1]}` });
  return undefined;
}

/** Why an exec line names a protected path, or undefined. */
export function findProtectedInExec(parse: ShellParseResult, ctx: ProtectedContext): Localized | undefined {
  if (!parse.ok) {
    const u: Unwrapped = { views: [], scripts: [], rough: [] };
    for (const argv of parse.rough) unwrapArgv(argv, [], 0, u);
    const inner = wordsOfUnwrapped(u, ctx, 0);
    return firstHit([...parse.rough.flat(), ...inner.words], ctx) ?? inner.hit;
  }
  return inScript(parse.script, ctx, 0);
}

function inScript(script: ShellScript, ctx: ProtectedContext, depth: number): Localized | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const unwrapped = unwrapScript(script);
  for (let i = 0; i < script.commands.length; i++) {
    const cmd = script.commands[i] as SimpleCommand;
    const own = firstHit(wordsOfCommand(cmd), ctx);
    if (own) return own;
    const u = unwrapped[i];
    if (!u) continue;
    const inner = wordsOfUnwrapped(u, ctx, depth);
    const r = firstHit(inner.words, ctx) ?? inner.hit;
    if (r) return r;
  }
  return undefined;
}

function wordsOfCommand(cmd: SimpleCommand): string[] {
  const out = [...pathWords(cmd.argv), ...cmd.assignments.map((a) => a.value)];
  for (const r of cmd.redirects) out.push(r.target.value);
  return out;
}

/** Options whose value is a pattern to leave out, never a file to write (`find . -not -path './.git/*'`). */
const EXCLUDE_OPERAND = new Set(["-path", "-ipath", "-name", "-iname", "-wholename", "-iwholename", "--exclude", "--exclude-dir", "--ignore", "--ignore-dir", "-g", "--glob", "--iglob"]);

/**
 * The words of an argv that could name a path, minus exclusion patterns (`--exclude-dir=.git`, `-g '!.git'`,
 * find's `-name .git -prune`): everyday searches skip `.git` that way and must not ask for it.
 */
function pathWords(argv: readonly string[]): string[] {
  return argv.filter((w, i) => {
    if (i > 0 && EXCLUDE_OPERAND.has(argv[i - 1] as string)) return false;
    return !/^--(exclude|ignore)[a-z-]*=/.test(w) && !/^--i?glob=!/.test(w) && !(w.startsWith("!") && w.length > 1);
  });
}

function wordsOfUnwrapped(u: Unwrapped, ctx: ProtectedContext, depth: number): { words: string[]; hit?: Localized } {
  const words = [...u.views.flatMap((v) => pathWords([v.name, ...v.args])), ...u.rough.flat()];
  for (const s of u.scripts) {
    const hit = inScript(s, ctx, depth + 1);
    if (hit) return { words, hit };
  }
  return { words };
}

function firstHit(words: readonly string[], ctx: ProtectedContext): Localized | undefined {
  for (const w of words) {
    const r = protectedWord(w, ctx);
    if (r) return r;
  }
  return undefined;
}

/** Why one shell word (after quote removal; expansions kept as source text) may name a protected path. */
export function protectedWord(word: string, ctx: ProtectedContext): Localized | undefined {
  if (word === "") return undefined;
  for (const w of expandBraces(word, 0)) {
    const r = protectedExpanded(w, ctx);
    if (r) return msg("protect.word", { why: r, word: JSON.stringify(word.length > 120 ? `${word.slice(0, 117)}...` : word) });
  }
  return undefined;
}

function protectedExpanded(word: string, ctx: ProtectedContext): Localized | undefined {
  const known = substituteKnown(word, ctx);
  if (ctx.readOnly && isDataPath(known, ctx)) return undefined;
  for (const home of homeForms(ctx.chatcliHome)) {
    if (containsPath(known, home)) return msg("protect.namesChatcli");
  }
  const segs = segmentsOf(known);
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i] as WordSegment;
    // A read-only command (the fail-closed check) may look inside .git (`cat .git/HEAD`, `ls .git/refs`).
    const name = NAMES.find((n) => segmentCouldBe(seg, n) && !(ctx.readOnly && n === ".git"));
    if (name) return name === ".chatcli" ? msg("protect.namesChatcli") : name === ".git" ? msg("protect.namesGit") : msg("protect.namesFile", { name });
    if (segmentCouldBe(seg, ".config")) {
      const next = segs[i + 1];
      if (next && ["gcloud", "gh", "git"].some((n) => segmentCouldBe(next, n))) return msg("protect.namesFile", { name: ".config/…" });
    }
  }
  return undefined;
}

/** A literal absolute path inside one of chatcli's data directories (no `..`, no wildcard). */
function isDataPath(word: string, ctx: ProtectedContext): boolean {
  if (!word.startsWith("/") || segmentsOf(word).some((s) => !s.literal) || word.split("/").includes("..")) return false;
  return homeForms(ctx.chatcliHome).some((h) => DATA_DIRS.some((d) => under(posix.normalize(word), posix.join(h, d)) && posix.normalize(word) !== posix.join(h, d)));
}

/** `~`, `$HOME`, `${HOME}`, `$CHATCLI_HOME` replaced by their known values, wherever a path can start in the word. */
function substituteKnown(word: string, ctx: ProtectedContext): string {
  return word
    .replace(/(^|[=:])~(?=\/|$|[=:])/g, (_m, pre: string) => pre + ctx.userHome)
    .replace(/\$\{HOME\}|\$HOME(?![A-Za-z0-9_])/g, ctx.userHome)
    .replace(/\$\{CHATCLI_HOME\}|\$CHATCLI_HOME(?![A-Za-z0-9_])/g, ctx.chatcliHome);
}

/** The chatcli home as given and as its real path (they differ when a parent is a symlink, e.g. /tmp on macOS). */
function homeForms(home: string): string[] {
  const given = posix.normalize(home).replace(/\/+$/, "");
  let real = given;
  try {
    real = realpathLenient(given);
  } catch {
    real = given;
  }
  return real === given ? [given] : [given, real];
}

function under(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

/** `dir` appears in `word` as a whole path (possibly after `=` or `:`, possibly with `..`/`.` segments around). */
function containsPath(word: string, dir: string): boolean {
  for (const piece of word.split(/[=:]/)) {
    if (!piece.startsWith("/")) continue;
    if (under(posix.normalize(piece), dir)) return true;
  }
  return false;
}
