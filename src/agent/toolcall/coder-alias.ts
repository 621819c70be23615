/**
 * The seed's `@coder` plugin as an alias of our tools (reference §4.2/§4.4), so ChatCLI prompts and habits keep
 * working: `<tool_call name="@coder" args='{"cmd":"read","args":{"file":"main.go"}}' />` → read {path:"main.go"}.
 * Accepted arg shapes: {cmd, args:{…}|"--flags"|[argv], flags?, positional?, …top-level flags}, {argv:[…]},
 * or a command line string `read --file main.go`.
 *
 * Our tools' argument names are declared here in one table; keep it in step with src/tool/*.
 */
import { isPlainObject, tryStrictJson } from "./lenient-json.ts";
import { argvToFlags, sanitizeCliArgs, splitCliArgs } from "./cli-args.ts";

export interface CoderAlias {
  tool: string;
  /** seed flag name (lowercase, dashes) → our argument name */
  args: Record<string, string>;
}

/** @coder subcommand → our tool and argument names (src/tool/builtin/*.ts input schemas). */
export const CODER_ALIASES: Readonly<Record<string, CoderAlias>> = {
  read: { tool: "read", args: { file: "path", start: "start_line", end: "end_line", head: "end_line" } },
  write: { tool: "write", args: { file: "path", content: "content" } },
  patch: { tool: "edit", args: { file: "path", search: "old_string", replace: "new_string", all: "replace_all" } },
  exec: { tool: "exec", args: { cmd: "command", dir: "cwd", timeout: "timeout_ms" } },
  search: {
    tool: "search",
    args: { term: "pattern", dir: "path", file: "path", glob: "glob", "max-results": "max_results" },
  },
  tree: { tool: "tree", args: { dir: "path", file: "path", "max-depth": "depth" } },
  list: { tool: "tree", args: { dir: "path", file: "path" } },
};

/** Spellings of subcommands models use (the seed's normalizeSubcommand), onto CODER_ALIASES keys. */
export const CODER_SUBCOMMAND_ALIASES: Readonly<Record<string, string>> = {
  read_file: "read", readfile: "read", "read-file": "read", cat: "read",
  write_file: "write", "write-file": "write", create: "write",
  edit: "patch", edit_file: "patch", patch_file: "patch", replace: "patch",
  grep: "search", find: "search", search_files: "search", rg: "search",
  run: "exec", shell: "exec", bash: "exec", execute: "exec", run_command: "exec", sh: "exec",
  ls: "tree", list_dir: "list", list_directory: "tree", dir: "list",
  git_status: "git-status", git_diff: "git-diff", git_log: "git-log", git_changed: "git-changed",
  git_branch: "git-branch", run_tests: "test",
};

/** The seed's normalizeArgAliases, applied before the per-subcommand table. */
const GENERIC_ARG_ALIASES: Readonly<Record<string, string>> = {
  path: "file", filepath: "file", filename: "file", file_path: "file",
  pattern: "term", query: "term",
  directory: "dir", cwd: "dir", workdir: "dir",
  command: "cmd",
  body: "content", data: "content", text: "content",
  begin: "start", from: "start", to: "end",
  old: "search", old_string: "search", new: "replace", new_string: "replace",
};

const NUMERIC = new Set(["start_line", "end_line", "timeout_ms", "max_results", "depth"]);
const BOOLEAN = new Set(["replace_all"]);
/** Seed flags our tools don't have; dropped so strict schemas don't reject an otherwise fine call. */
const DROPPED = new Set(["encoding", "max-bytes", "context", "include-hidden", "ignore", "max-entries", "allow-unsafe", "allow-sudo", "tail", "append"]);
const GIT = new Set(["git-status", "git-diff", "git-log", "git-changed", "git-branch"]);

/** Subcommand names the seed's implicit `{"cmd":…,"args":…}` detection accepts. */
export const CODER_SUBCOMMANDS: readonly string[] = [
  "read", "write", "patch", "tree", "search", "exec", "test", "rollback", "clean", "list",
  "git-status", "git-diff", "git-log", "git-changed", "git-branch",
];

export type CoderResolution = { ok: true; name: string; args: Record<string, unknown> } | { ok: false; error: string };

export function isCoderName(name: string): boolean {
  const n = name.trim().toLowerCase();
  return n === "@coder" || n === "coder";
}

/** Resolves one @coder call to one of our tools. */
export function resolveCoderCall(input: Record<string, unknown> | string): CoderResolution {
  const parsed = typeof input === "string" ? fromCommandLine(input) : fromObject(input);
  if (!parsed) return { ok: false, error: '@coder needs a subcommand: {"cmd":"read","args":{"file":"…"}}' };
  const sub = normalizeSub(parsed.sub);
  const flags = Object.fromEntries(Object.entries(parsed.flags).map(([k, v]) => [normalizeFlag(k), v]));
  if (GIT.has(sub)) return gitCall(sub, flags);
  if (sub === "test") {
    const cmd = flags["cmd"];
    if (typeof cmd !== "string" || cmd.trim() === "") return { ok: false, error: "@coder test: pass the test command as exec {\"command\":\"…\"}" };
    return { ok: true, name: "exec", args: typeof flags["dir"] === "string" ? { command: cmd, cwd: flags["dir"] } : { command: cmd } };
  }
  const alias = CODER_ALIASES[sub];
  if (!alias) {
    return { ok: false, error: `@coder subcommand "${parsed.sub}" is not available; use one of ${Object.keys(CODER_ALIASES).join(", ")}` };
  }
  const args: Record<string, unknown> = {};
  if (sub === "read" && flags["head"] !== undefined && flags["start"] === undefined) args["start_line"] = 1;
  for (const [k, v] of Object.entries(flags)) {
    if (DROPPED.has(k) || k === "regex" || k === "case-sensitive") continue;
    const target = alias.args[k] ?? k.replace(/-/g, "_");
    args[target] = coerce(target, v);
  }
  if (sub === "exec" && typeof args["timeout_ms"] === "number") args["timeout_ms"] = args["timeout_ms"] * 1000; // seconds
  if (sub === "list") args["depth"] = 1;
  if (sub === "search") {
    // the seed searched fixed strings, case-insensitively, unless told otherwise
    if (!truthy(flags["regex"])) args["literal"] = true;
    if (!truthy(flags["case-sensitive"])) args["ignore_case"] = true;
  }
  const firstPositional = parsed.positional[0];
  if (firstPositional !== undefined) {
    const main = sub === "exec" ? "command" : sub === "search" ? "pattern" : "path";
    if (args[main] === undefined) args[main] = sub === "exec" ? parsed.positional.join(" ") : firstPositional;
  }
  return { ok: true, name: alias.tool, args };
}

interface Parsed {
  sub: string;
  flags: Record<string, unknown>;
  positional: string[];
}

function fromCommandLine(s: string): Parsed | undefined {
  const t = s.trim();
  if (t.startsWith("{")) {
    const j = tryStrictJson(t);
    if (j.ok && isPlainObject(j.value)) return fromObject(j.value);
  }
  return fromArgv(splitCliArgs(sanitizeCliArgs(t)));
}

function fromArgv(argv: string[]): Parsed | undefined {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub.startsWith("-")) return undefined;
  const { flags, positional } = argvToFlags(rest);
  return { sub, flags, positional };
}

function fromObject(o: Record<string, unknown>): Parsed | undefined {
  if (Array.isArray(o["argv"]) && o["argv"].every((x) => typeof x === "string")) return fromArgv(o["argv"] as string[]);
  const cmd = typeof o["cmd"] === "string" ? o["cmd"] : typeof o["command"] === "string" ? o["command"] : undefined;
  if (cmd === undefined) return undefined;
  const flags: Record<string, unknown> = {};
  const positional: string[] = [];
  for (const [k, v] of Object.entries(o)) {
    if (["cmd", "argv", "args", "flags", "positional", "_"].includes(k)) continue;
    if (k === "command" && o["cmd"] === undefined) continue;
    flags[k] = v;
  }
  // the subcommand may carry its flags inline: {"cmd":"read --file a.go"}
  let sub = cmd;
  if (/\s/.test(cmd.trim())) {
    const inline = fromArgv(splitCliArgs(sanitizeCliArgs(cmd)));
    if (inline) {
      sub = inline.sub;
      Object.assign(flags, inline.flags);
      positional.push(...inline.positional);
    }
  }
  for (const key of ["args", "flags"]) {
    let v = o[key];
    if (typeof v === "string") {
      const j = tryStrictJson(v.trim());
      if (j.ok) v = j.value;
    }
    if (isPlainObject(v)) Object.assign(flags, v);
    else if (typeof v === "string") {
      const a = argvToFlags(splitCliArgs(sanitizeCliArgs(v)));
      Object.assign(flags, a.flags);
      positional.push(...a.positional);
    } else if (Array.isArray(v)) {
      const a = argvToFlags(v.map(String));
      Object.assign(flags, a.flags);
      positional.push(...a.positional);
    }
  }
  for (const key of ["positional", "_"]) {
    const v = o[key];
    if (Array.isArray(v)) positional.push(...v.map(String));
  }
  return { sub, flags, positional };
}

function normalizeSub(s: string): string {
  const k = s.trim().toLowerCase();
  return CODER_SUBCOMMAND_ALIASES[k] ?? CODER_SUBCOMMAND_ALIASES[k.replace(/-/g, "_")] ?? k;
}

function normalizeFlag(k: string): string {
  const n = k.replace(/^-+/, "").trim();
  const lower = n.toLowerCase();
  if (GENERIC_ARG_ALIASES[lower] !== undefined) return GENERIC_ARG_ALIASES[lower];
  // caseSensitive / case_sensitive → case-sensitive, so the tables match whatever spelling came in
  return n.replace(/([a-z])([A-Z])/g, "$1-$2").replace(/_/g, "-").toLowerCase();
}

function truthy(v: unknown): boolean {
  return v === true || (typeof v === "string" && /^(true|1|yes)$/i.test(v.trim()));
}

function coerce(target: string, v: unknown): unknown {
  if (typeof v !== "string") return v;
  if (NUMERIC.has(target) && /^-?\d+$/.test(v.trim())) return Number(v.trim());
  if (BOOLEAN.has(target) && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === "true";
  return v;
}

function shellQuote(s: string): string {
  return /^[\w./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function gitCall(sub: string, f: Record<string, unknown>): CoderResolution {
  const parts = ["git"];
  const path = typeof f["path"] === "string" ? f["path"] : typeof f["file"] === "string" ? f["file"] : undefined;
  switch (sub) {
    case "git-status":
      parts.push("status");
      break;
    case "git-changed":
      parts.push("status", "--porcelain");
      break;
    case "git-branch":
      parts.push("branch", "--show-current");
      break;
    case "git-log": {
      const limit = Number(f["limit"] ?? 20);
      parts.push("log", "--oneline", "-n", String(Number.isFinite(limit) && limit > 0 ? Math.floor(limit) : 20));
      if (path) parts.push("--", shellQuote(path));
      break;
    }
    default: {
      parts.push("diff");
      if (f["staged"] === true || f["staged"] === "true") parts.push("--staged");
      if (f["name-only"] === true || f["name-only"] === "true") parts.push("--name-only");
      if (f["stat"] === true || f["stat"] === "true") parts.push("--stat");
      if (path) parts.push("--", shellQuote(path));
    }
  }
  const args: Record<string, unknown> = { command: parts.join(" ") };
  if (typeof f["dir"] === "string") args["cwd"] = f["dir"];
  return { ok: true, name: "exec", args };
}
