/**
 * Is an `exec` command read-only, so it may run without asking? Decided on the parse (parse-shell.ts), never on
 * the raw text. Deliberately strict (issue 4): `;`, newlines, `&&`, `||`, `&`, `$(…)`, backticks, `<(…)`,
 * subshells, groups, loops, functions, heredocs, env prefixes (`LD_PRELOAD=… ls`) and redirections (except fd
 * duplication like `2>&1` and writes to /dev/null) all make it not read-only. A pipe is fine when every stage is
 * read-only on its own, so `git status | tee out` is not (tee writes). Program names must be bare (`./ls` could
 * be anything). Code runners are never read-only (`awk`, `node -e`, `python -c`, `sed` beyond `-n 'N,Mp'`).
 */
import type { ShellFeature, ShellParseResult, SimpleCommand } from "../shell/shell-types.ts";
import { hasFlag, operandsOf } from "./dangerous.ts";
import { gitSubcommand } from "./safety-immune.ts";

export type ReadOnlyVerdict = { readOnly: true } | { readOnly: false; reason: string };

const BLOCKING_FEATURES: ReadonlyArray<[ShellFeature, string]> = [
  ["sequence", "`;` or a newline joins several commands"],
  ["and", "`&&` joins several commands"],
  ["or", "`||` joins several commands"],
  ["background", "`&` runs a command in the background"],
  ["substitution", "it contains a command substitution ($(…) or backticks)"],
  ["process-substitution", "it contains a process substitution (<(…) or >(…))"],
  ["subshell", "it contains a subshell"],
  ["group", "it contains a { …; } group"],
  ["compound", "it contains a compound command (if/for/while/case)"],
  ["function", "it defines a function"],
  ["heredoc", "it contains a heredoc"],
];

export function readOnlyVerdict(parse: ShellParseResult): ReadOnlyVerdict {
  if (!parse.ok) return { readOnly: false, reason: `the command could not be parsed (${parse.error})` };
  const { script } = parse;
  for (const [feature, reason] of BLOCKING_FEATURES) {
    if (script.features.has(feature)) return { readOnly: false, reason };
  }
  if (script.commands.length === 0) return { readOnly: false, reason: "empty command" };
  for (const cmd of script.commands) {
    const r = commandVerdict(cmd);
    if (!r.readOnly) return r;
  }
  return { readOnly: true };
}

function commandVerdict(cmd: SimpleCommand): ReadOnlyVerdict {
  if (cmd.assignments.length > 0) return { readOnly: false, reason: "it sets environment variables for the command" };
  for (const r of cmd.redirects) {
    const t = r.target.value;
    const dup = (r.op === ">&" || r.op === "<&") && /^(\d+|-)$/.test(t);
    const devNull = (r.op === ">" || r.op === ">>" || r.op === "&>" || r.op === "&>>") && t === "/dev/null";
    if (!dup && !devNull) return { readOnly: false, reason: `it redirects ${r.op === "<" ? "input from" : "output to"} ${t}` };
  }
  const first = cmd.words[0];
  if (!first) return { readOnly: false, reason: "empty command" };
  if (first.expansion || first.substitutions.length > 0) return { readOnly: false, reason: "the program name is computed" };
  if (first.value.includes("/")) return { readOnly: false, reason: `${first.value} is not a known read-only program` };
  const name = first.value;
  const args = cmd.argv.slice(1);
  return isReadOnlyProgram(name, args) ? { readOnly: true } : { readOnly: false, reason: `${[name, ...args].join(" ")} is not known to be read-only` };
}

const PLAIN = new Set([
  "ls", "ll", "la", "dir", "cat", "tac", "head", "wc", "stat", "du", "df", "realpath", "readlink", "basename", "dirname",
  "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "grep", "egrep", "fgrep",
  "ag", "cut", "tr", "diff", "cmp", "comm", "jq", "uname", "whoami", "id", "groups", "uptime", "printenv", "which",
  "whereis", "type", "echo", "printf", "pwd", "true", "false", "test", "[", "nl", "ps", "free", "nproc", "arch", "less",
  "more", "rev", "fold", "strings", "od", "hexdump", "column", "seq", "lscpu", "getconf", "locale", "cd", "wc",
]);
const VERSION_ONLY = new Set([
  "node", "nodejs", "python", "python3", "python2", "rustc", "cargo", "java", "javac", "go", "npm", "npx", "yarn", "pnpm",
  "bun", "deno", "pip", "pip3", "ruby", "perl", "php", "tsc", "gcc", "g++", "clang", "make", "cmake", "docker", "kubectl",
  "git", "rg", "gh", "dotnet", "swift", "kotlin", "gradle", "mvn",
]);
const VERSION_ARGS = new Set(["--version", "-v", "-V", "version", "-version"]);
const SUBCOMMANDS: Record<string, ReadonlySet<string>> = {
  npm: new Set(["ls", "list", "ll", "view", "info", "show", "outdated", "root", "why", "explain", "help", "search"]),
  yarn: new Set(["list", "info", "why", "outdated"]),
  pnpm: new Set(["list", "ls", "why", "outdated"]),
  pip: new Set(["list", "show", "freeze", "check"]),
  pip3: new Set(["list", "show", "freeze", "check"]),
  go: new Set(["version", "list", "doc"]),
  docker: new Set(["ps", "images", "inspect", "logs", "info", "version", "top", "stats"]),
  kubectl: new Set(["get", "describe", "logs", "top", "version", "cluster-info", "api-resources", "api-versions"]),
};
const GIT_PLAIN = new Set([
  "status", "diff", "log", "show", "rev-parse", "describe", "ls-files", "ls-tree", "cat-file", "blame", "shortlog",
  "grep", "rev-list", "show-ref", "merge-base", "name-rev", "count-objects", "whatchanged", "check-ignore", "version",
]);

export function isReadOnlyProgram(name: string, args: string[]): boolean {
  const ops = operandsOf(args);
  if (args.length === 1 && VERSION_ARGS.has(args[0] as string) && VERSION_ONLY.has(name)) return true;
  if (PLAIN.has(name)) return true;
  switch (name) {
    case "tail":
      return !hasFlag(args, "fF", "--follow", "--retry") && !args.some((a) => a.startsWith("--follow"));
    case "find":
      return !args.some((a) => a === "-delete" || a.startsWith("-exec") || a.startsWith("-ok") || a.startsWith("-fprint") || a === "-fls");
    case "rg":
      return !args.some((a) => a === "--pre" || a.startsWith("--pre="));
    case "sort":
      return !hasFlag(args, "o", "--output") && !args.some((a) => a.startsWith("--output=") || a.startsWith("--compress-program"));
    case "uniq":
      return ops.length <= 1;
    case "tree":
      return !hasFlag(args, "o");
    case "file":
      return !hasFlag(args, "C", "--compile");
    case "hostname":
      return ops.length === 0;
    case "date":
      return !hasFlag(args, "s", "--set") && !args.some((a) => a.startsWith("--set=")) && ops.every((o) => o.startsWith("+"));
    case "env":
      return args.length === 0;
    case "command":
      return args[0] === "-v" || args[0] === "-V";
    case "sed":
      return readOnlySed(args);
    case "git":
      return readOnlyGit(args);
    case "go":
      if (ops[0] === "env") return !hasFlag(args, "wu");
      break;
    case "docker":
      if ((ops[0] === "network" || ops[0] === "volume" || ops[0] === "image" || ops[0] === "container") && (ops[1] === "ls" || ops[1] === "inspect")) return true;
      break;
    case "kubectl":
      if (ops[0] === "config") return ["view", "get-contexts", "current-context"].includes(ops[1] ?? "");
      break;
    case "npm":
      if (ops[0] === "config") return ops[1] === "get" || ops[1] === "list" || ops[1] === "ls";
      break;
  }
  const subs = SUBCOMMANDS[name];
  const sub = args[0];
  return subs !== undefined && sub !== undefined && subs.has(sub);
}

/** Only `sed -n 'N,Mp' file`-style range printing: every other sed script may write files (`w`) or run code (`e`). */
function readOnlySed(args: string[]): boolean {
  const scripts: string[] = [];
  let sawScriptFlag = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "-n" || a === "--quiet" || a === "--silent" || a === "-E" || a === "-r" || a === "--") continue;
    if (a === "-e" || a === "--expression") {
      scripts.push(args[i + 1] ?? "");
      sawScriptFlag = true;
      i++;
      continue;
    }
    if (a.startsWith("-")) return false;
    if (!sawScriptFlag && scripts.length === 0) scripts.push(a);
  }
  const range = /^\s*(\d+|\$)(\s*,\s*(\d+|\$))?\s*[pd=]?\s*$/;
  return scripts.length > 0 && scripts.every((s) => s.split(";").every((part) => range.test(part)));
}

function readOnlyGit(args: string[]): boolean {
  const { sub, rest, globals } = gitSubcommand(args);
  // `-c core.pager=…` / `--exec-path` can run arbitrary programs.
  if (globals.some((g) => g === "-c" || g.startsWith("--exec-path") || g.startsWith("--config-env"))) return false;
  const ops = operandsOf(rest);
  if (GIT_PLAIN.has(sub)) {
    if (rest.some((a) => a === "--output" || a.startsWith("--output=") || a === "-O" || a.startsWith("--open-files-in-pager"))) return false;
    return true;
  }
  switch (sub) {
    case "branch":
      return listingOnly(rest, ops, ["-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "-l", "--list", "--show-current", "--no-color", "--ignore-case", "-i"]);
    case "tag":
      return listingOnly(rest, ops, ["-l", "--list", "-i", "--ignore-case", "--no-color"]) || rest.every((a) => /^-n\d*$/.test(a));
    case "remote":
      return ops.length === 0 ? rest.every((a) => a === "-v" || a === "--verbose") : ops[0] === "show" || ops[0] === "get-url";
    case "stash":
      return ops[0] === "list" || ops[0] === "show";
    case "reflog":
      return ops.length === 0 || ops[0] === "show";
    case "worktree":
      return ops[0] === "list";
    case "config":
      if (ops[0] === "get" || ops[0] === "list") return true;
      return rest.some((a) => ["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l"].includes(a)) &&
        !rest.some((a) => ["--unset", "--unset-all", "--add", "--replace-all", "--edit", "-e", "--rename-section", "--remove-section"].includes(a));
    default:
      return false;
  }
}

/** `git branch` / `git tag` just list: only listing flags, and operands only as patterns/commits of a listing. */
function listingOnly(rest: string[], ops: string[], flags: string[]): boolean {
  const withValue = ["--contains", "--no-contains", "--merged", "--no-merged", "--points-at"];
  const flagOk = (a: string) =>
    flags.includes(a) || withValue.some((w) => a === w || a.startsWith(w + "=")) ||
    ["--sort=", "--format=", "--color", "--column", "--abbrev"].some((p) => a.startsWith(p));
  if (!rest.filter((a) => a.startsWith("-")).every(flagOk)) return false;
  if (ops.length === 0) return true;
  return rest.some((a) => a === "-l" || a === "--list" || withValue.some((w) => a === w || a.startsWith(w + "=")));
}
