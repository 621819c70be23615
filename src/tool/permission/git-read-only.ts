/**
 * The vetted read-only git calls. They count as read-only only because chatcli runs them with the hardening of
 * util/git-hardening.ts (git-exec-env.ts tells the exec tool when); any other git call asks. Global options are
 * limited to `--no-pager`, `-P`, `--no-optional-locks`, `--literal-pathspecs` and `-C <dir>` (no `-c`,
 * `--git-dir`, `--work-tree`, `--exec-path`, `--config-env`); every subcommand has an allowlist of flags with
 * the program-running ones named in `forbid` (`--output`, `--ext-diff`, `--textconv`, `-O`/`--open-files-in-pager`,
 * `--show-signature`), and nothing that talks to a remote (`fetch`, `ls-remote`, `remote show`) is vetted.
 * A value-taking declaration must match git exactly where git's value is optional (`-U`, `--abbrev`): were we to
 * take the next word as a value that git parses as an option, `git diff -U --output=X` would slip through. Taking
 * a required value for a flag (`-l`) is the safe mistake: the next word is then checked on its own.
 */
import { checkFlags, type FlagSpec } from "./flag-spec.ts";
import type { ArgsVerdict } from "./read-only-commands.ts";
import { msg } from "../../i18n/i18n.ts";

/** Pretty formats must not ask for signature checks (`%G?`, `%(signature)` run gpg). */
const formatOk = (opt: string, v: string) => !(/format|pretty/.test(opt) && /%G|%\(signature/i.test(v));

const FORBID = ["output=", "ext-diff", "textconv", "open-files-in-pager=?", "show-signature", "output-directory=", "exec=", "upload-pack=", "remerge-diff", "contents="];

const DIFF_LONG = [
  "patch", "no-patch", "unified=?", "raw", "patch-with-raw", "indent-heuristic", "no-indent-heuristic", "minimal", "patience",
  "histogram", "anchored=", "diff-algorithm=", "stat=?", "compact-summary", "numstat", "shortstat", "dirstat=?", "cumulative",
  "dirstat-by-file=?", "summary", "patch-with-stat", "name-only", "name-status", "submodule=?", "color=?", "no-color",
  "color-moved=?", "no-color-moved", "color-moved-ws=", "word-diff=?", "word-diff-regex=", "color-words=?", "no-renames",
  "rename-empty", "no-rename-empty", "check", "ws-error-highlight=", "full-index", "binary", "abbrev=?", "no-abbrev",
  "break-rewrites=?", "find-renames=?", "find-copies=?", "find-copies-harder", "irreversible-delete", "diff-filter=",
  "pickaxe-all", "pickaxe-regex", "relative=?", "no-relative", "text", "ignore-cr-at-eol", "ignore-space-at-eol",
  "ignore-space-change", "ignore-all-space", "ignore-blank-lines", "ignore-matching-lines=", "inter-hunk-context=",
  "function-context", "exit-code", "quiet", "no-ext-diff", "no-textconv", "ignore-submodules=?", "src-prefix=",
  "dst-prefix=", "no-prefix", "default-prefix", "line-prefix=", "ita-invisible-in-index", "merge-base", "cached", "staged",
  "stat-width=", "stat-name-width=", "stat-count=", "stat-graph-width=", "no-index",
];
const DIFF: FlagSpec = { short: "psuzRabwWDl", shortValue: "SG", shortOptional: "UMBCX", long: DIFF_LONG, forbid: FORBID, value: formatOk };

const LOG_LONG = [
  "oneline", "max-count=", "skip=", "since=", "after=", "until=", "before=", "author=", "committer=", "grep=", "all-match",
  "invert-grep", "regexp-ignore-case", "basic-regexp", "extended-regexp", "fixed-strings", "perl-regexp", "all", "branches=?",
  "tags=?", "remotes=?", "glob=", "exclude=", "graph", "decorate=?", "no-decorate", "decorate-refs=", "decorate-refs-exclude=",
  "format=", "pretty=?", "reverse", "first-parent", "no-merges", "merges", "min-parents=", "max-parents=", "no-min-parents",
  "no-max-parents", "follow", "date=", "relative-date", "abbrev-commit", "no-abbrev-commit", "source", "left-right",
  "cherry-pick", "cherry-mark", "cherry", "boundary", "ancestry-path=?", "topo-order", "date-order", "author-date-order",
  "simplify-by-decoration", "full-history", "dense", "sparse", "simplify-merges", "show-pulls", "walk-reflogs", "children",
  "parents", "notes=?", "no-notes", "encoding=", "expand-tabs=?", "no-expand-tabs", "mailmap", "no-mailmap", "use-mailmap",
  "no-use-mailmap", "full-diff", "diff-merges=", "no-diff-merges", "combined-all-paths", "not", "count", "no-walk=?", "do-walk",
];
const LOG: FlagSpec = {
  short: `${DIFF.short}iEFPmcg`,
  shortValue: `${DIFF.shortValue}n`,
  shortOptional: DIFF.shortOptional,
  numeric: true,
  long: [...DIFF_LONG, ...LOG_LONG],
  forbid: FORBID,
  value: formatOk,
};

const SPECS: Readonly<Record<string, FlagSpec>> = {
  status: {
    short: "sbvz",
    shortOptional: "u",
    long: ["short", "branch", "show-stash", "porcelain=?", "long", "verbose", "untracked-files=?", "ignore-submodules=?", "ignored=?", "null", "column=?", "no-column", "ahead-behind", "no-ahead-behind", "renames", "no-renames", "find-renames=?"],
    forbid: FORBID,
  },
  diff: DIFF,
  log: LOG,
  show: LOG,
  "rev-list": LOG,
  blame: {
    short: "bclftnpsew",
    shortValue: "L",
    shortOptional: "MC",
    long: ["root", "show-stats", "show-name", "show-number", "porcelain", "line-porcelain", "incremental", "show-email", "abbrev=?", "date=", "progress", "no-progress", "color-lines", "color-by-age", "minimal", "first-parent", "since=", "reverse", "ignore-rev=", "ignore-revs-file=", "encoding="],
    forbid: FORBID,
  },
  "ls-files": {
    short: "cdmoiskutvfz",
    shortValue: "xX",
    long: ["cached", "deleted", "modified", "others", "ignored", "stage", "killed", "directory", "no-empty-directory", "unmerged", "resolve-undo", "exclude=", "exclude-from=", "exclude-per-directory=", "exclude-standard", "error-unmatch", "with-tree=", "full-name", "recurse-submodules", "abbrev=?", "debug", "eol", "deduplicate", "sparse", "format="],
    forbid: FORBID,
  },
  "ls-tree": { short: "dlrtz", long: ["long", "name-only", "name-status", "object-only", "full-name", "full-tree", "abbrev=?", "format="], forbid: FORBID },
  "rev-parse": {
    short: "q",
    long: [
      "show-toplevel", "abbrev-ref=?", "short=?", "verify", "quiet", "git-dir", "git-common-dir", "absolute-git-dir", "show-cdup",
      "show-prefix", "is-inside-work-tree", "is-inside-git-dir", "is-bare-repository", "is-shallow-repository", "symbolic",
      "symbolic-full-name", "all", "branches=?", "tags=?", "remotes=?", "glob=", "show-superproject-working-tree",
      "show-object-format=?", "default=", "revs-only", "no-revs", "flags", "no-flags", "sq", "not", "local-env-vars",
      "path-format=", "since=", "until=", "after=", "before=", "disambiguate=", "git-path=", "shared-index-path",
    ],
  },
  describe: { long: ["tags", "all", "long", "always", "contains", "abbrev=?", "candidates=", "exact-match", "debug", "first-parent", "match=", "exclude=", "dirty=?", "broken=?"] },
  shortlog: { short: "nsec", long: ["numbered", "summary", "email", "committer", "group=", "all", "since=", "until=", "no-merges", "author="] },
  grep: {
    short: "aivwnhHclLoqzEFGPIrWp",
    shortValue: "efmABC",
    numeric: true,
    long: [
      "cached", "untracked", "no-exclude-standard", "exclude-standard", "recurse-submodules", "text", "ignore-case",
      "max-depth=", "recursive", "no-recursive", "word-regexp", "invert-match", "full-name", "extended-regexp", "basic-regexp",
      "perl-regexp", "fixed-strings", "line-number", "column", "files-with-matches", "name-only", "files-without-match", "null",
      "only-matching", "count", "color=?", "no-color", "break", "heading", "show-function", "context=", "after-context=",
      "before-context=", "function-context", "threads=", "file=", "and", "or", "not", "all-match", "quiet", "max-count=", "no-textconv",
    ],
    forbid: FORBID,
  },
  "merge-base": { short: "a", long: ["all", "octopus", "is-ancestor", "independent", "fork-point"] },
  "show-ref": { short: "dsq", long: ["heads", "tags", "branches", "head", "verify", "dereference", "hash=?", "abbrev=?", "quiet", "exists"] },
  "count-objects": { short: "vH", long: ["verbose", "human-readable"] },
  "check-ignore": { short: "qvnz", long: ["quiet", "verbose", "non-matching", "no-index"] },
  "cat-file": { short: "tspe", long: ["allow-unknown-type", "mailmap", "use-mailmap"], forbid: ["textconv", "filters", "batch=?", "batch-check=?", "batch-command=?"] },
  version: { long: ["build-options"] },
};

const REF_LIST_LONG = ["color=?", "no-color", "ignore-case", "contains=", "no-contains=", "merged=", "no-merged=", "points-at=", "sort=", "format=", "column=?", "no-column"];
const BRANCH: FlagSpec = { short: "arvli", long: ["all", "remotes", "verbose", "list", "show-current", "abbrev=?", "no-abbrev", "omit-empty", ...REF_LIST_LONG], value: formatOk };
const TAG: FlagSpec = { short: "li", shortOptional: "n", long: ["list", ...REF_LIST_LONG], forbid: ["verify"], value: formatOk };
const CONFIG_READ = ["get", "get-all", "get-regexp", "get-urlmatch", "list"];
const CONFIG: FlagSpec = {
  short: "lz",
  long: [...CONFIG_READ, "global", "local", "system", "worktree", "show-origin", "show-scope", "name-only", "null", "includes", "no-includes", "type=", "bool", "int", "bool-or-int", "path", "expiry-date", "default="],
};

/** Verdict for `git <args>` (args after the program name). */
export function readOnlyGit(args: readonly string[]): ArgsVerdict {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--no-pager" || a === "-P" || a === "--no-optional-locks" || a === "--literal-pathspecs") continue;
    if (a === "-C") {
      const dir = args[++i];
      if (dir === undefined || dir === "" || dir.startsWith("-")) return msg("ro.git.cDir");
      continue;
    }
    if (a === "--version" && i === args.length - 1) return true;
    if (a.startsWith("-")) return msg("ro.git.global", { option: a });
    break;
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (sub === undefined) return msg("ro.git.noSub");
  const s = SPECS[sub];
  if (s) return verdict(rest, s);
  switch (sub) {
    case "branch":
    case "tag": {
      const r = checkFlags(rest, sub === "branch" ? BRANCH : TAG);
      if (!r.ok) return r.reason;
      const listing = r.options.some((o) => o === "-l" || o === "--list" || (sub === "tag" && o === "-n"));
      return r.operands.length === 0 || listing ? true : msg("ro.git.creates", { sub });
    }
    case "remote":
      if (rest.length === 0 || (rest.length === 1 && (rest[0] === "-v" || rest[0] === "--verbose"))) return true;
      if (rest[0] === "get-url") return verdict(rest.slice(1), { long: ["push", "all"] }, 1);
      return msg("ro.git.remote");
    case "stash":
      return rest.length === 1 && rest[0] === "list" ? true : msg("ro.git.stash");
    case "worktree":
      return rest[0] === "list" ? verdict(rest.slice(1), { short: "vz", long: ["porcelain", "verbose"] }, 0) : msg("ro.git.worktree");
    case "reflog": {
      const body = rest[0] === "show" ? rest.slice(1) : rest;
      const r = checkFlags(body, LOG);
      if (!r.ok) return r.reason;
      return ["expire", "delete", "exists"].includes(r.operands[0] ?? "") ? msg("ro.git.reflog", { sub: r.operands[0] ?? "" }) : true;
    }
    case "config": {
      if (rest[0] === "get" || rest[0] === "list") return verdict(rest.slice(1), CONFIG);
      const r = checkFlags(rest, CONFIG);
      if (!r.ok) return r.reason;
      const reads = r.options.some((o) => o === "-l" || CONFIG_READ.some((c) => o === `--${c}`));
      return reads ? true : msg("ro.git.configWrites");
    }
    default:
      return msg("ro.git.notVetted", { sub });
  }
}

function verdict(args: readonly string[], spec: FlagSpec, maxOperands = Infinity): ArgsVerdict {
  const r = checkFlags(args, spec);
  if (!r.ok) return r.reason;
  return r.operands.length <= maxOperands ? true : msg("ro.git.operands");
}
