/**
 * What a simple command really runs. `sudo rm -rf /`, `env X=1 rm …`, `xargs rm`, `find . -exec rm {} \;`,
 * `bash -c "…"`, `eval "…"`, `bash <<EOF … EOF` all hide a second command behind the first word; the blocklists
 * (dangerous.ts, safety-immune.ts) must see both. Views are argv lists with the program name normalized to its
 * basename; nested scripts come back parsed (or as rough splits when unparseable).
 */
import { parseShell } from "../shell/parse-shell.ts";
import { roughSplit } from "../shell/rough-split.ts";
import type { ShellScript, SimpleCommand } from "../shell/shell-types.ts";

export interface CommandView {
  /** Basename of the program (`/bin/rm` → `rm`). */
  name: string;
  args: string[];
  /** Wrappers peeled off to reach it, outermost first (`["sudo", "env"]`). */
  via: string[];
}

export interface Unwrapped {
  views: CommandView[];
  /** Scripts the command runs as code: `sh -c`, `eval`, heredoc fed to a shell, `watch`. */
  scripts: ShellScript[];
  /** Rough argv lists of such scripts that did not parse. */
  rough: string[][];
}

export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "busybox-sh"]);
/** Interpreters and the flags that take inline code (`python -c`, `node -e`, `php -r`). */
const INLINE_CODE: Readonly<Record<string, ReadonlySet<string>>> = {
  python: new Set(["-c"]), python2: new Set(["-c"]), python3: new Set(["-c"]),
  node: new Set(["-e", "--eval", "-p", "--print"]), nodejs: new Set(["-e", "--eval", "-p", "--print"]),
  bun: new Set(["-e", "--eval", "-p", "--print"]), deno: new Set(["eval"]),
  perl: new Set(["-e", "-E"]), ruby: new Set(["-e"]), php: new Set(["-r"]), lua: new Set(["-e"]),
};
const MAX_BRACE_WORDS = 64;
const MAX_DEPTH = 6;

export function programName(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash >= 0 ? word.slice(slash + 1) : word;
}

/**
 * Unwraps every command of a script. Also substitutes variables assigned earlier in the same script
 * (`a=rm; $a -rf /`) and `$IFS` (`rm${IFS}-rf${IFS}/`) to get an extra view of each command.
 */
export function unwrapScript(script: ShellScript): Unwrapped[] {
  const vars = new Map<string, string>();
  return script.commands.map((c) => {
    const u = unwrapSimple(c);
    for (const argv of argvVariants(c.argv, vars)) unwrapArgv(argv, [], 0, u);
    if (c.argv.length === 0) {
      for (const a of c.assignments) {
        const eq = a.value.indexOf("=");
        vars.set(a.value.slice(0, eq).replace(/\+$/, ""), a.value.slice(eq + 1));
      }
    }
    return u;
  });
}

/**
 * The other argv lists a command may run as, beyond the one written: known variables and `$IFS` substituted
 * (`a=rm; $a -rf /`, `rm${IFS}-rf${IFS}/`), then every other expansion taken as empty (`find / -de${U}lete`,
 * `rm -rf /$U`), then brace expansion of each (`find . {-exec,touch,X,\;}`, `rm -rf /{bin,etc}`).
 */
export function argvVariants(argv: string[], vars: ReadonlyMap<string, string> = new Map()): string[][] {
  const out: string[][] = [];
  const seen = new Set([JSON.stringify(argv)]);
  const add = (v: string[] | undefined) => {
    if (!v || seen.has(JSON.stringify(v))) return;
    seen.add(JSON.stringify(v));
    out.push(v);
  };
  const substituted = substituteVars(argv, vars, false);
  const emptied = substituteVars(substituted ?? argv, vars, true);
  add(substituted);
  add(emptied);
  for (const v of [argv, substituted, emptied]) if (v) add(expandArgvBraces(v));
  return out;
}

/** `rm -rf /{bin,etc}` → `rm -rf /bin /etc` (quoting is not tracked per character: may over-expand). */
function expandArgvBraces(argv: string[]): string[] | undefined {
  if (!argv.some((w) => w.includes("{") && (w.includes(",") || w.includes("..")))) return undefined;
  const out = argv.flatMap((w) => expandBraces(w, 0));
  return out.length === argv.length && out.every((w, i) => w === argv[i]) ? undefined : out;
}

export function expandBraces(word: string, depth: number): string[] {
  if (depth > 4) return [word];
  let open = -1;
  let level = 0;
  const commas: number[] = [];
  for (let i = 0; i < word.length; i++) {
    const c = word[i];
    if (c === "{") {
      if (level === 0) {
        open = i;
        commas.length = 0;
      }
      level++;
    } else if (c === "}" && level > 0) {
      level--;
      const seq = level === 0 && commas.length === 0 ? braceSequence(word.slice(open + 1, i)) : undefined;
      if (seq) return seq.flatMap((p) => expandBraces(word.slice(0, open) + p + word.slice(i + 1), depth + 1)).slice(0, MAX_BRACE_WORDS);
      if (level === 0 && commas.length > 0) {
        const pre = word.slice(0, open);
        const post = word.slice(i + 1);
        const bounds = [open, ...commas, i];
        const parts = bounds.slice(0, -1).map((b, k) => word.slice(b + 1, bounds[k + 1]));
        const out = parts.flatMap((p) => expandBraces(pre + p + post, depth + 1));
        return out.slice(0, MAX_BRACE_WORDS);
      }
    } else if (c === "," && level === 1) commas.push(i);
  }
  return [word];
}

/** `{a..e}`, `{1..3}`, `{x..z..2}` → the words; undefined when not a sequence. */
function braceSequence(body: string): string[] | undefined {
  const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(body);
  if (!m) return undefined;
  const [from, to] = [m[1] as string, m[2] as string];
  const numeric = /\d/.test(from);
  if (numeric !== /\d/.test(to)) return undefined;
  const a = numeric ? Number(from) : from.charCodeAt(0);
  const b = numeric ? Number(to) : to.charCodeAt(0);
  const step = Math.max(1, Math.abs(Number(m[3] ?? 1)));
  const out: string[] = [];
  for (let k = a; a <= b ? k <= b : k >= b; k += a <= b ? step : -step) {
    out.push(numeric ? String(k) : String.fromCharCode(k));
    if (out.length >= MAX_BRACE_WORDS) break;
  }
  return out;
}

/** Known variables and IFS substituted; with `emptyUnknown`, every other `$X` / `${…}` becomes "". */
function substituteVars(argv: string[], vars: ReadonlyMap<string, string>, emptyUnknown: boolean): string[] | undefined {
  let changed = false;
  const out = argv.flatMap((w) => {
    if (!w.includes("$")) return [w];
    const r = w.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)|\$\{[^}]*\}|\$[0-9@*#?!-]/g, (m, a?: string, b?: string) => {
      const name = a ?? b;
      if (name === "IFS") return " ";
      const known = name !== undefined ? vars.get(name) : undefined;
      if (known !== undefined) return known;
      if (!emptyUnknown || name === "HOME") return m;
      return "";
    });
    if (r === w) return [w];
    changed = true;
    return r.split(/\s+/).filter(Boolean);
  });
  return changed ? out : undefined;
}

export function unwrapSimple(cmd: SimpleCommand): Unwrapped {
  const out: Unwrapped = { views: [], scripts: [], rough: [] };
  unwrapArgv(cmd.argv, [], 0, out);
  const name = programName(cmd.argv[0] ?? "");
  // `bash <<EOF … EOF`, `sh <<< "…"`: the input is the script.
  if (SHELLS.has(name)) {
    for (const r of cmd.redirects) {
      if (r.op === "<<" || r.op === "<<-") addScript(r.heredoc ?? "", 0, out);
      if (r.op === "<<<") addScript(r.target.value, 0, out);
    }
  }
  return out;
}

export function unwrapArgv(argv: string[], via: string[], depth: number, out: Unwrapped): void {
  const first = argv[0];
  if (first === undefined || depth > MAX_DEPTH) return;
  const name = programName(first);
  const args = argv.slice(1);
  out.views.push({ name, args, via });
  const inner = [...via, name];
  const rest = (argvRest: string[] | undefined) => {
    if (argvRest && argvRest.length > 0) unwrapArgv(argvRest, inner, depth + 1, out);
  };
  switch (name) {
    case "sudo":
    case "doas":
      return rest(skipOptions(args, new Set(["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group"])));
    case "env":
      return envRest(args, inner, depth, out);
    case "nice":
      return rest(skipOptions(args, new Set(["-n", "--adjustment"])));
    case "ionice":
      return rest(skipOptions(args, new Set(["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"])));
    case "chrt":
    case "taskset":
      return rest(skipOptions(args, new Set()).slice(1));
    case "stdbuf":
      return rest(skipOptions(args, new Set(["-i", "-o", "-e"])));
    case "nohup":
    case "builtin":
    case "exec":
    case "time":
    case "busybox":
    case "unbuffer":
    case "setsid":
    case "caffeinate":
      return rest(skipOptions(args, new Set(["-a"])));
    case "command":
      if (args.includes("-v") || args.includes("-V")) return;
      return rest(skipOptions(args, new Set()));
    case "timeout":
      return rest(skipOptions(args, new Set(["-s", "-k", "--signal", "--kill-after"])).slice(1));
    case "xargs":
      return rest(
        skipOptions(
          args,
          new Set(["-I", "-n", "-P", "-L", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-lines", "--replace"]),
        ),
      );
    case "find":
      return findExecs(args, inner, depth, out);
    case "watch":
      return addScript(skipOptions(args, new Set(["-n", "-d", "--interval"])).join(" "), depth, out);
    case "eval":
      return addScript(args.join(" "), depth, out);
    case "su":
      return shellDashC(args, depth, out);
    default:
      if (SHELLS.has(name)) shellDashC(args, depth, out);
      else if (INLINE_CODE[name]) inlineCode(args, INLINE_CODE[name], out);
  }
}

/**
 * `python -c "import os; os.system('rm -rf /')"`: the code is not shell, but its rough split still exposes the
 * command strings it embeds to the blocklists (never used to decide that something is safe).
 */
function inlineCode(args: string[], flags: ReadonlySet<string>, out: Unwrapped): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const code = flags.has(a) ? args[i + 1] : [...flags].find((f) => f.length === 2 && a.startsWith(f) && a.length > 2) ? a.slice(2) : undefined;
    if (code !== undefined) out.rough.push(...roughSplit(code));
  }
}

/** `sh -c 'script'`, `bash -lc "…"`, `su -c "…"`: parse the script argument. */
function shellDashC(args: string[], depth: number, out: Unwrapped): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") return;
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(a) || a === "--command") {
      const script = args[i + 1];
      if (script !== undefined) addScript(script, depth, out);
      return;
    }
    if (!a.startsWith("-") && !a.startsWith("+")) return;
  }
}

function envRest(args: string[], via: string[], depth: number, out: Unwrapped): void {
  let i = 0;
  while (i < args.length) {
    const a = args[i] as string;
    if (a === "-S" || a === "--split-string") {
      addScript(args.slice(i + 1).join(" "), depth, out);
      return;
    }
    if (a.startsWith("-S") && a.length > 2) {
      addScript([a.slice(2), ...args.slice(i + 1)].join(" "), depth, out);
      return;
    }
    if (a === "-u" || a === "-C" || a === "--unset" || a === "--chdir") i += 2;
    else if (a === "--") i++;
    else if (a.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) i++;
    else break;
  }
  if (i < args.length) unwrapArgv(args.slice(i), via, depth + 1, out);
}

function findExecs(args: string[], via: string[], depth: number, out: Unwrapped): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a !== "-exec" && a !== "-execdir" && a !== "-ok" && a !== "-okdir") continue;
    const cmd: string[] = [];
    let j = i + 1;
    for (; j < args.length && args[j] !== ";" && args[j] !== "+"; j++) cmd.push(args[j] as string);
    if (cmd.length > 0) unwrapArgv(cmd, via, depth + 1, out);
    i = j;
  }
}

/** Drops leading options (and the values of those in `withValue`) up to the first operand or `--`. */
function skipOptions(args: string[], withValue: ReadonlySet<string>): string[] {
  let i = 0;
  while (i < args.length) {
    const a = args[i] as string;
    if (a === "--") return args.slice(i + 1);
    if (!a.startsWith("-") || a === "-") break;
    i += withValue.has(a) ? 2 : 1;
  }
  return args.slice(i);
}

function addScript(text: string, depth: number, out: Unwrapped): void {
  if (depth > MAX_DEPTH) return;
  const r = parseShell(text);
  if (r.ok) out.scripts.push(r.script);
  else out.rough.push(...r.rough);
}
