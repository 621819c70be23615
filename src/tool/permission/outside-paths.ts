/**
 * The paths an exec line names that lie outside the project, for the approval box ("/tmp/build is outside the
 * project"): literal operands of every simple command (wrappers and lists included) and file redirections,
 * after `~`/`$HOME` and the working directory. Words whose value is only known at run time (`$DIR`, `$(…)`) and
 * bare names without a `/` (inside the working directory) are left out; where an earlier `cd` went is not
 * followed. Informational only: the permission decision never depends on it.
 */
import { isAbsolute, posix, resolve } from "node:path";
import { parseShell } from "../shell/parse-shell.ts";
import type { ShellWord } from "../shell/shell-types.ts";

export interface OutsidePathsContext {
  projectRoot: string;
  /** Where the command runs. */
  cwd: string;
  userHome: string;
}

const MAX_SHOWN = 3;
const FILE_REDIRECTS = new Set(["<", ">", ">>", ">|", "<>", "&>", "&>>"]);
/** Outside every project, and harmless to name. */
const NOT_WORTH_SAYING = /^\/dev\/(null|zero|stdin|stdout|stderr|tty|fd\/\d+)$/;

export function pathsOutsideProject(command: string, ctx: OutsidePathsContext): string[] {
  const parsed = parseShell(command);
  if (!parsed.ok) return [];
  const root = resolve(ctx.projectRoot);
  const out: string[] = [];
  const consider = (w: ShellWord) => {
    const abs = resolveWord(w, ctx);
    if (abs === undefined || NOT_WORTH_SAYING.test(abs) || inside(abs, root) || out.includes(w.value)) return;
    out.push(w.value);
  };
  for (const c of parsed.script.commands) {
    c.words.slice(1).forEach(consider);
    for (const r of c.redirects) if (FILE_REDIRECTS.has(r.op) && !/^\d+$|^-$/.test(r.target.value)) consider(r.target);
  }
  return out.slice(0, MAX_SHOWN);
}

function resolveWord(w: ShellWord, ctx: OutsidePathsContext): string | undefined {
  if (w.substitutions.length) return undefined;
  let v = w.value;
  // An option's attached value (`--output=/tmp/x`).
  if (v.startsWith("-")) {
    const eq = v.indexOf("=");
    if (eq < 0) return undefined;
    v = v.slice(eq + 1);
  }
  const home = /^(~|\$HOME|\$\{HOME\})(?=\/|$)/.exec(v);
  if (home) v = ctx.userHome + v.slice(home[0].length);
  else if (w.expansion || v.includes("$")) return undefined;
  if (v === "" || (!v.includes("/") && v !== "..")) return undefined;
  return isAbsolute(v) ? posix.normalize(v) : resolve(ctx.cwd, v);
}

function inside(abs: string, root: string): boolean {
  const rel = posix.relative(root, abs);
  return rel === "" || (rel !== ".." && !rel.startsWith("../") && !posix.isAbsolute(rel));
}
