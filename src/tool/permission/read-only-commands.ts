/**
 * The programs that may run without asking, each with an allowlist of flags (flag-spec.ts). A program missing
 * here, or given a flag its spec does not list, is not read-only. Left out on purpose: pagers (less, more, man:
 * `--lesskey-src`, `!cmd`), editors, code runners (awk, node -e…), build tools and anything that reads project
 * configuration that may run code (make, cargo, npm, yarn, go, mvn, gradle, dotnet, kubectl, rustc), and language
 * runtimes even for `--version`: version-manager shims (mise, asdf, pyenv, nvm) read project files such as
 * `.tool-versions` or `.mise.toml`, which may name programs or scripts to run.
 * git is in git-read-only.ts.
 */
import { checkFlags, type FlagSpec } from "./flag-spec.ts";
import { msg, type Localized } from "../../i18n/i18n.ts";

/** true, or why not: English for the model, the user's language in the approval box. */
export type ArgsVerdict = true | Localized;

const spec = (s: FlagSpec) => (args: readonly string[]): ArgsVerdict => {
  const r = checkFlags(args, s);
  return r.ok ? true : r.reason;
};
const noArgs = (args: readonly string[]): ArgsVerdict => (args.length === 0 ? true : msg("ro.cmd.noArgs"));

const HELP = ["help", "version"];
const SECRET_NAME = /KEY|TOKEN|SECRET|PASS|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE/i;
const HASH = spec({ short: "bctwz", long: ["binary", "check", "tag", "text", "ignore-missing", "quiet", "status", "strict", "warn", "zero", ...HELP] });

const GREP: FlagSpec = {
  short: "EFGPiyvwxcLloqsbHhnTZzUaIrR",
  shortValue: "efmABCdD",
  numeric: true,
  long: [
    "extended-regexp", "fixed-strings", "basic-regexp", "perl-regexp", "regexp=", "file=", "ignore-case", "no-ignore-case",
    "word-regexp", "line-regexp", "null-data", "no-messages", "invert-match", "max-count=", "byte-offset", "line-number",
    "line-buffered", "with-filename", "no-filename", "label=", "only-matching", "quiet", "silent",
    "binary-files=", "text", "directories=", "devices=", "recursive", "dereference-recursive", "include=", "exclude=",
    "exclude-from=", "exclude-dir=", "files-without-match", "files-with-matches", "count", "initial-tab", "null",
    "before-context=", "after-context=", "context=", "color=?", "colour=?", "binary", ...HELP,
  ],
};

const RG: FlagSpec = {
  short: "iSsFwxvcloqnNHIhaLuUP0.",
  shortValue: "egtTmABCMjrEf",
  long: [
    "files", "type-list", "glob=", "iglob=", "type=", "type-not=", "type-add=", "type-clear=", "ignore-case", "smart-case",
    "case-sensitive", "fixed-strings", "word-regexp", "line-regexp", "invert-match", "count", "count-matches",
    "files-with-matches", "files-without-match", "only-matching", "quiet", "line-number", "no-line-number",
    "with-filename", "no-filename", "heading", "no-heading", "hidden", "no-hidden", "no-ignore", "no-ignore-vcs",
    "no-ignore-dot", "no-ignore-parent", "no-ignore-global", "no-ignore-exclude", "no-ignore-files", "no-require-git",
    "follow", "max-depth=", "maxdepth=", "max-count=", "max-columns=", "max-columns-preview", "max-filesize=",
    "context=", "before-context=", "after-context=", "color=", "colors=", "column", "no-column", "vimgrep", "json",
    "replace=", "regexp=", "file=", "multiline", "multiline-dotall", "pcre2", "engine=", "sort=", "sortr=", "stats",
    "trim", "text", "binary", "null", "null-data", "threads=", "unrestricted", "encoding=", "pretty", "passthru",
    "no-messages", "byte-offset", "crlf", "no-config", "glob-case-insensitive", "ignore-file=", "one-file-system",
    "path-separator=", "context-separator=", "field-match-separator=", "field-context-separator=", "debug", ...HELP,
  ],
  forbid: ["pre=", "pre-glob=", "hostname-bin=", "search-zip"],
};

/** find: start paths, then an expression of tests and printing actions only. */
const FIND_PLAIN = new Set([
  "-print", "-print0", "-ls", "-prune", "-quit", "-true", "-false", "-empty", "-readable", "-writable", "-executable",
  "-nouser", "-nogroup", "-depth", "-daystart", "-follow", "-mount", "-xdev", "-noleaf", "-ignore_readdir_race",
  "-noignore_readdir_race", "-and", "-a", "-or", "-o", "-not", "!", "(", ")", ",",
]);
const FIND_VALUE = new Set([
  "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-regextype", "-type", "-xtype",
  "-size", "-perm", "-user", "-group", "-uid", "-gid", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-newer",
  "-anewer", "-cnewer", "-samefile", "-links", "-inum", "-maxdepth", "-mindepth", "-fstype", "-lname", "-ilname", "-used",
  "-printf",
]);

function findArgs(args: readonly string[]): ArgsVerdict {
  let i = 0;
  while (i < args.length && /^-[HLP]$/.test(args[i] as string)) i++;
  while (i < args.length && !(args[i] as string).startsWith("-") && !["(", "!", ")", ","].includes(args[i] as string)) i++;
  for (; i < args.length; i++) {
    const a = args[i] as string;
    if (FIND_PLAIN.has(a)) continue;
    if (FIND_VALUE.has(a) || /^-newer[aBcmt][aBcmt]$/.test(a)) {
      if (args[++i] === undefined) return msg("ro.cmd.needsValue", { option: a });
      continue;
    }
    return msg("ro.cmd.findTest", { test: a });
  }
  return true;
}

const SED_RANGE = /^\s*(\d+|\$)(\s*,\s*(\d+|\$))?\s*[pd=]?\s*$/;
const safeSedScript = (s: string) => s.split(";").every((part) => SED_RANGE.test(part));

/** `sed -n` printing line ranges only: every other sed script may write files (`w`) or run code (`e`). */
function sedArgs(args: readonly string[]): ArgsVerdict {
  let scripts = 0;
  const r = checkFlags(args, {
    short: "nErsz",
    shortValue: "e",
    long: ["quiet", "silent", "regexp-extended", "separate", "null-data", "expression=", "posix", "debug", "sandbox", ...HELP],
    forbid: ["in-place=?", "file=", "unbuffered", "line-length=", "follow-symlinks", "binary"],
    value: (_opt, v) => {
      scripts++;
      return safeSedScript(v);
    },
  });
  if (!r.ok) return r.reason;
  if (!r.options.some((o) => o === "-n" || o === "--quiet" || o === "--silent")) return msg("ro.cmd.sedNoN");
  if (scripts === 0) {
    const script = r.operands[0];
    if (script === undefined || !safeSedScript(script)) return msg("ro.cmd.sedScript");
  }
  return true;
}

function testArgs(args: readonly string[], name: string): ArgsVerdict {
  const body = name === "[" ? args.slice(0, -1) : args;
  if (name === "[" && args[args.length - 1] !== "]") return msg("ro.cmd.bracketUnclosed");
  // `-v 'a[$(cmd)]'` and `-R` make bash evaluate an array subscript.
  if (body.some((a) => a === "-v" || a === "-R" || a.includes("["))) return msg("ro.cmd.testV");
  return true;
}

function printfArgs(args: readonly string[]): ArgsVerdict {
  if (args[0]?.startsWith("-v") || args[0] === "--" && args[1]?.startsWith("-v")) return msg("ro.cmd.printfV");
  return args.length > 0 && args[0]?.startsWith("-") && args[0] !== "--" ? msg("ro.cmd.printfOption", { option: args[0] }) : true;
}

function psArgs(args: readonly string[]): ArgsVerdict {
  // BSD `e` (no dash) prints every process's environment: not allowed; `-e` (every process) is.
  const ok = args.every((a) => /^-[AaefFjlHLTuwxy]+$/.test(a) || /^[AaxufjlwHLTy]+$/.test(a) || /^--sort=[-+\w,]+$/.test(a));
  return ok ? true : msg("ro.cmd.ps");
}

function dateArgs(args: readonly string[]): ArgsVerdict {
  const r = checkFlags(args, {
    short: "uR",
    shortValue: "dfr",
    shortOptional: "I",
    long: ["utc", "universal", "rfc-email", "date=", "file=", "reference=", "iso-8601=?", "rfc-3339=", "debug", ...HELP],
    forbid: ["set="],
  });
  if (!r.ok) return r.reason;
  return r.operands.every((o) => o.startsWith("+")) ? true : msg("ro.cmd.dateSet");
}

function uniqArgs(args: readonly string[]): ArgsVerdict {
  const r = checkFlags(args, {
    short: "cdDiuz",
    shortValue: "fsw",
    long: ["count", "repeated", "all-repeated=?", "group=?", "skip-fields=", "skip-chars=", "check-chars=", "ignore-case", "unique", "zero-terminated", ...HELP],
  });
  if (!r.ok) return r.reason;
  return r.operands.length <= 1 ? true : msg("ro.cmd.uniqWrites");
}

const PIP = (args: readonly string[]): ArgsVerdict =>
  ["list", "show", "freeze"].includes(args[0] ?? "") && args.slice(1).every((a) => !a.startsWith("-") || ["-v", "--verbose", "--outdated", "-o", "--local", "-l", "-f", "--files"].includes(a))
    ? true
    : msg("ro.cmd.pip");

const DOCKER = (args: readonly string[]): ArgsVerdict => {
  if (args.length === 1 && (args[0] === "--version" || args[0] === "version" || args[0] === "info")) return true;
  const sub = args[0];
  if (sub === "ps" || sub === "images") return checkFlags(args.slice(1), { short: "aq", long: ["all", "quiet", "no-trunc"] }).ok ? true : msg("ro.cmd.dockerFlags");
  return msg("ro.cmd.docker");
};

/**
 * Recursive content searches stay inside the project: `grep -r KEY ~` or `rg -uu KEY ../..` would read every
 * credential file a named-path check never sees. Operands must be relative and must not climb out.
 */
const insideProject = (operands: readonly string[]) => operands.every((o) => !/^[/~]/.test(o) && !/(^|\/)\.\.(\/|$)/.test(o));

function grepArgs(args: readonly string[]): ArgsVerdict {
  const r = checkFlags(args, GREP);
  if (!r.ok) return r.reason;
  const recursive = r.options.some((o) => ["-r", "-R", "-d", "--recursive", "--dereference-recursive", "--directories"].includes(o));
  // The first operand is the pattern unless -e / -f / --regexp / --file gave it.
  const given = r.options.some((o) => ["-e", "-f", "--regexp", "--file"].includes(o));
  const paths = given ? r.operands : r.operands.slice(1);
  return !recursive || insideProject(paths) ? true : msg("ro.cmd.recursiveOutside");
}

function rgArgs(args: readonly string[]): ArgsVerdict {
  const r = checkFlags(args, RG);
  if (!r.ok) return r.reason;
  const given = r.options.some((o) => ["-e", "-f", "--regexp", "--file", "--files", "--type-list"].includes(o));
  const paths = given ? r.operands : r.operands.slice(1);
  return insideProject(paths) ? true : msg("ro.cmd.recursiveOutside");
}

const JQ = spec({
  short: "rjacnsSeCMRh",
  long: ["raw-output", "raw-output0", "join-output", "ascii-output", "compact-output", "null-input", "slurp", "sort-keys", "exit-status", "color-output", "monochrome-output", "raw-input", "tab", "indent=", "arg=", "argjson=", "slurpfile=", "rawfile=", "args", "jsonargs", "seq", "stream", "stream-errors", ...HELP],
  forbid: ["from-file=", "library-path="],
});

export const READ_ONLY_COMMANDS: Readonly<Record<string, (args: readonly string[], name: string) => ArgsVerdict>> = {
  ls: spec({
    short: "aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxXZ1",
    shortValue: "ITw",
    long: [
      "all", "almost-all", "author", "escape", "block-size=", "ignore-backups", "color=?", "colour=?", "directory", "dired",
      "classify=?", "file-type", "format=", "full-time", "group-directories-first", "no-group", "human-readable", "si",
      "dereference-command-line", "dereference-command-line-symlink-to-dir", "hide=", "hyperlink=?", "indicator-style=",
      "inode", "ignore=", "kibibytes", "dereference", "numeric-uid-gid", "literal", "hide-control-chars",
      "show-control-chars", "quote-name", "quoting-style=", "reverse", "recursive", "size", "sort=", "time=", "time-style=",
      "tabsize=", "width=", "context", "zero", ...HELP,
    ],
  }),
  ll: spec({ short: "aAhrRtSl1" }),
  cat: spec({ short: "AbeEnstTuv", long: ["show-all", "number-nonblank", "show-ends", "number", "squeeze-blank", "show-tabs", "show-nonprinting", ...HELP] }),
  tac: spec({ short: "br", shortValue: "s", long: ["before", "regex", "separator=", ...HELP] }),
  head: spec({ short: "qvz", shortValue: "nc", numeric: true, long: ["bytes=", "lines=", "quiet", "silent", "verbose", "zero-terminated", ...HELP] }),
  tail: spec({
    short: "qvz",
    shortValue: "nc",
    numeric: true,
    long: ["bytes=", "lines=", "quiet", "silent", "verbose", "zero-terminated", ...HELP],
    forbid: ["follow=?", "retry", "pid=", "sleep-interval=", "max-unchanged-stats="],
  }),
  wc: spec({ short: "clmwL", long: ["bytes", "chars", "lines", "words", "max-line-length", "files0-from=", "total=", ...HELP] }),
  grep: grepArgs,
  egrep: grepArgs,
  fgrep: grepArgs,
  rg: rgArgs,
  find: findArgs,
  sort: spec({
    short: "bdfgiMhnRrVcCsuz",
    shortValue: "kt",
    long: [
      "ignore-leading-blanks", "dictionary-order", "ignore-case", "general-numeric-sort", "ignore-nonprinting", "month-sort",
      "human-numeric-sort", "numeric-sort", "random-sort", "random-source=", "reverse", "sort=", "version-sort", "check=?",
      "debug", "field-separator=", "key=", "merge", "stable", "unique", "zero-terminated", "files0-from=", ...HELP,
    ],
    forbid: ["output=", "compress-program=", "temporary-directory=", "buffer-size=", "parallel="],
  }),
  uniq: uniqArgs,
  cut: spec({ short: "snz", shortValue: "bcdf", long: ["bytes=", "characters=", "delimiter=", "fields=", "complement", "only-delimited", "output-delimiter=", "zero-terminated", ...HELP] }),
  tr: spec({ short: "cCdst", long: ["complement", "delete", "squeeze-repeats", "truncate-set1", ...HELP] }),
  diff: spec({
    short: "qsyupcenNtTiEZbwBarldH",
    shortValue: "CUWIxXS",
    numeric: true,
    long: [
      "normal", "brief", "report-identical-files", "context=?", "unified=?", "ed", "rcs", "side-by-side", "width=", "left-column",
      "suppress-common-lines", "show-c-function", "show-function-line=", "label=", "expand-tabs", "initial-tab", "tabsize=",
      "suppress-blank-empty", "recursive", "no-dereference", "new-file", "unidirectional-new-file", "ignore-file-name-case",
      "no-ignore-file-name-case", "exclude=", "exclude-from=", "starting-file=", "from-file=", "to-file=", "ignore-case",
      "ignore-tab-expansion", "ignore-trailing-space", "ignore-space-change", "ignore-all-space", "ignore-blank-lines",
      "ignore-matching-lines=", "text", "strip-trailing-cr", "minimal", "horizon-lines=", "speed-large-files", "color=?", ...HELP,
    ],
  }),
  cmp: spec({ short: "bls", shortValue: "in", long: ["print-bytes", "verbose", "quiet", "silent", "ignore-initial=", "bytes=", ...HELP] }),
  comm: spec({ short: "123z", long: ["check-order", "nocheck-order", "output-delimiter=", "total", "zero-terminated", ...HELP] }),
  file: spec({
    short: "bcEhiLkNnrsz0",
    shortValue: "mfFeP",
    long: ["brief", "checking-printout", "exclude=", "exclude-quiet=", "files-from=", "separator=", "mime", "mime-type", "mime-encoding", "keep-going", "raw", "dereference", "no-dereference", "no-buffer", "no-pad", "special-files", "uncompress", ...HELP],
    forbid: ["compile", "preserve-date", "uncompress-noreport"],
  }),
  stat: spec({ short: "LftZ", shortValue: "c", long: ["dereference", "file-system", "format=", "printf=", "terse", "cached=", ...HELP] }),
  du: spec({
    short: "0abcDhHklLmsSxP",
    shortValue: "dBtX",
    long: ["all", "apparent-size", "block-size=", "bytes", "total", "dereference-args", "human-readable", "inodes", "si", "summarize", "separate-dirs", "threshold=", "time=?", "time-style=", "exclude=", "exclude-from=", "max-depth=", "one-file-system", "null", "count-links", "dereference", "no-dereference", "files0-from=", ...HELP],
  }),
  df: spec({ short: "ahHiklPTv", shortValue: "Btx", long: ["all", "block-size=", "human-readable", "si", "inodes", "local", "no-sync", "sync", "output=?", "portability", "print-type", "type=", "exclude-type=", "total", ...HELP] }),
  // bash's echo reads -n/-e/-E and prints everything else.
  echo: () => true,
  printf: printfArgs,
  pwd: spec({ short: "LP" }),
  cd: spec({ short: "LP", stopAtOperand: true }),
  which: spec({ short: "as" }),
  whereis: spec({ short: "bmsul" }),
  type: spec({ short: "afptP" }),
  command: (args) => (args[0] === "-v" || args[0] === "-V" ? true : msg("ro.cmd.commandRuns")),
  basename: spec({ short: "az", shortValue: "s", long: ["multiple", "suffix=", "zero", ...HELP] }),
  dirname: spec({ short: "z", long: ["zero", ...HELP] }),
  realpath: spec({ short: "eLmPqsz", long: ["canonicalize-existing", "canonicalize-missing", "logical", "physical", "quiet", "relative-to=", "relative-base=", "strip", "no-symlinks", "zero", ...HELP] }),
  readlink: spec({ short: "efmnqsvz", long: ["canonicalize", "canonicalize-existing", "canonicalize-missing", "no-newline", "quiet", "silent", "verbose", "zero", ...HELP] }),
  md5sum: HASH, sha1sum: HASH, sha224sum: HASH, sha256sum: HASH, sha384sum: HASH, sha512sum: HASH, b2sum: HASH,
  cksum: spec({ short: "", long: HELP }),
  // jq's `env` / `$ENV` print the environment like a bare printenv; modules and program files could too.
  jq: (args) => (args.some((a) => /\$ENV\b|\benv\b|\binclude\b|\bimport\b/.test(a)) ? msg("ro.cmd.jqEnv") : JQ(args)),
  tree: spec({
    short: "adlfxiqNQpugshDFvtUrcCnAS",
    shortValue: "LPIHT",
    long: ["noreport", "charset=", "filelimit=", "dirsfirst", "filesfirst", "gitignore", "du", "si", "prune", "timefmt=", "sort=", "matchdirs", "ignore-case", "info", ...HELP],
  }),
  rev: noArgs,
  nl: spec({ short: "p", shortValue: "bdfhilnsvw" }),
  fold: spec({ short: "bs", shortValue: "w" }),
  seq: spec({ short: "w", shortValue: "fs" }),
  od: spec({ short: "bcdfilosxv", shortValue: "AjNSt", shortOptional: "w" }),
  hexdump: spec({ short: "bcCdovx", shortValue: "ns" }),
  strings: spec({ short: "afw", shortValue: "nte" }),
  // Named, non-secret variables only: a bare `printenv` / `env` dumps every key the process holds.
  printenv: (args) => {
    const r = checkFlags(args, { short: "0", long: ["null", ...HELP] });
    if (!r.ok) return r.reason;
    if (r.operands.length === 0) return msg("ro.cmd.printenvAll");
    return r.operands.some((o) => SECRET_NAME.test(o)) ? msg("ro.cmd.printenvSecret") : true;
  },
  uname: spec({ short: "asnrvmpio", long: ["all", "kernel-name", "nodename", "kernel-release", "kernel-version", "machine", "processor", "hardware-platform", "operating-system", ...HELP] }),
  whoami: noArgs,
  id: spec({ short: "ugGnrz" }),
  groups: spec({}),
  uptime: spec({ short: "ps", long: ["pretty", "since", ...HELP] }),
  nproc: spec({ long: ["all", "ignore=", ...HELP] }),
  arch: noArgs,
  free: spec({ short: "bkmghlwtv", long: ["bytes", "kibi", "mebi", "gibi", "human", "si", "total", "wide", ...HELP] }),
  lscpu: spec({ short: "aebcpJxy" }),
  locale: spec({ short: "ack" }),
  hostname: (args) => {
    const r = checkFlags(args, { short: "fsidAI", long: ["fqdn", "short", "ip-address", "all-ip-addresses", "domain", ...HELP] });
    return !r.ok ? r.reason : r.operands.length === 0 ? true : msg("ro.cmd.hostnameSet");
  },
  true: () => true,
  false: () => true,
  test: testArgs,
  "[": testArgs,
  ps: psArgs,
  date: dateArgs,
  sed: sedArgs,
  pip: PIP,
  pip3: PIP,
  docker: DOCKER,
};
