/**
 * Safety-immune commands and paths: they always ask, even when an allow rule matches (reference §4.6,
 * cli/coder/safety_immunity.go). Only bypass mode skips the question. Same inputs as dangerous.ts.
 */
import type { ShellScript } from "../shell/shell-types.ts";
import { unwrapArgv, unwrapScript, type CommandView, type Unwrapped } from "./command-view.ts";
import { hasFlag, operandsOf } from "./dangerous.ts";
import { isSensitivePath, isSystemPath } from "./paths.ts";
import { msg, type Localized } from "../../i18n/i18n.ts";

const WRITE_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&"]);
const SQL = ["drop database", "drop table", "drop schema", "truncate table"];
const MAX_DEPTH = 6;

/** What a finding says, English for the model and the user's language in the approval box (i18n render). */
export type Finding = Localized;
/** Inside the per-program checks a plain string is a command as the user would type it (`git push --force`). */
type RawFinding = string | Localized;
const asFinding = (r: RawFinding): Finding => (typeof r === "string" ? msg("danger.command", { command: r }) : r);

export function findSafetyImmune(script: ShellScript, depth = 0): Finding | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const unwrapped = unwrapScript(script);
  for (let i = 0; i < script.commands.length; i++) {
    for (const r of script.commands[i]?.redirects ?? []) {
      const s = isSensitivePath(r.target.value);
      if (s && WRITE_OPS.has(r.op)) return msg("immune.writeTo", { what: s });
    }
    const u = unwrapped[i];
    const r = u ? immuneInUnwrapped(u, depth) : undefined;
    if (r) return r;
  }
  return undefined;
}

export function findSafetyImmuneRough(rough: string[][]): Finding | undefined {
  const u: Unwrapped = { views: [], scripts: [], rough: [] };
  for (const argv of rough) unwrapArgv(argv, [], 0, u);
  return immuneInUnwrapped(u, MAX_DEPTH);
}

/** For file tools: system paths and credential files. */
export function immunePath(path: string): Finding | undefined {
  if (isSystemPath(path)) return msg("immune.systemPath", { path });
  const s = isSensitivePath(path);
  return s ? msg("immune.sensitivePath", { what: s }) : undefined;
}

function immuneInUnwrapped(u: Unwrapped, depth: number): Finding | undefined {
  for (const v of u.views) {
    const r = immuneView(v);
    if (r) return asFinding(r);
  }
  for (const s of u.scripts) {
    const r = findSafetyImmune(s, depth + 1);
    if (r) return r;
  }
  return u.rough.length > 0 ? findSafetyImmuneRough(u.rough) : undefined;
}

function immuneView(v: CommandView): RawFinding | undefined {
  const { name, args } = v;
  const ops = operandsOf(args);
  for (const a of args) {
    const s = isSensitivePath(a);
    if (s) return msg("immune.touches", { what: s });
  }
  const text = [name, ...args].join(" ").toLowerCase().replace(/\s+/g, " ");
  for (const q of SQL) if (text.includes(q)) return msg("immune.sql", { statement: q });
  if (text.includes("delete from") && (text.includes("where 1=1") || !text.includes("where"))) return msg("immune.sqlDelete");
  if (name.startsWith("mkfs")) return name;
  switch (name) {
    case "rm":
      if (hasFlag(args, "rRf", "--recursive", "--force")) return "rm -r/-f";
      return ops.some((o) => o.startsWith("/") || o.startsWith("~")) ? msg("immune.rmAbsolute") : undefined;
    case "sudo":
    case "doas":
    case "pkexec":
    case "su":
      return name;
    case "dd":
      return args.some((a) => a.startsWith("of=/dev/")) ? msg("immune.ddDev") : undefined;
    case "shred":
      return "shred";
    case "chmod": {
      const mode = ops[0] ?? "";
      if (/^0*777$/.test(mode) || /^[ugoa]*\+rwx$/.test(mode) || /^[oa]\+w$/.test(mode)) return `chmod ${mode}`;
      if (/\+[rwxXt]*s/.test(mode) || /^[246][0-7]{3}$/.test(mode)) return msg("immune.chmodSetuid", { mode });
      return undefined;
    }
    case "chown":
      return /^(root|0)(:|$)/.test(ops[0] ?? "") ? "chown root" : undefined;
    case "chgrp":
      return /^(root|wheel|0)$/.test(ops[0] ?? "") ? "chgrp root" : undefined;
    case "insmod":
    case "rmmod":
    case "modprobe":
      return name;
    case "sysctl":
      return hasFlag(args, "w", "--write") || ops.some((o) => o.includes("=")) ? "sysctl -w" : undefined;
    case "systemctl":
      return ["stop", "disable", "mask", "kill", "isolate"].includes(ops[0] ?? "") ? `systemctl ${ops[0]}` : undefined;
    case "service":
      return ops[1] === "stop" ? "service stop" : undefined;
    case "nc":
    case "ncat":
    case "netcat":
      return hasFlag(args, "l", "--listen") ? `${name} -l` : undefined;
    case "git":
      return immuneGit(args);
    case "kill":
      return args.some((a) => a === "-9" || a === "-KILL" || a === "-SIGKILL") || (args.includes("-s") && args.some((a) => /^(SIG)?KILL$|^9$/.test(a)))
        ? "kill -9"
        : undefined;
    case "killall":
      return "killall";
    case "pkill":
      return args.some((a) => a === "-9" || a === "-KILL" || a === "-SIGKILL") ? "pkill -9" : undefined;
    case "crontab":
    case "iptables":
    case "ip6tables":
      return hasFlag(args, "rF", "--flush", "--remove") ? name : undefined;
    case "shutdown":
    case "reboot":
    case "poweroff":
    case "halt":
      return name;
    default:
      return undefined;
  }
}

function immuneGit(args: string[]): string | undefined {
  const { sub, rest } = gitSubcommand(args);
  const ops = operandsOf(rest);
  switch (sub) {
    case "push":
      if (hasFlag(rest, "f", "--force", "--mirror", "--delete") || rest.some((a) => a.startsWith("--force"))) return "git push --force";
      if (hasFlag(rest, "d")) return "git push --delete";
      return ops.some((o) => o.startsWith("+") || o.startsWith(":")) ? "git push +refspec" : undefined;
    case "reset":
      return rest.includes("--hard") ? "git reset --hard" : undefined;
    case "clean":
      return hasFlag(rest, "f", "--force") ? "git clean -f" : undefined;
    case "checkout":
      return hasFlag(rest, "f", "--force") ? "git checkout --force" : undefined;
    case "branch":
      return rest.includes("-D") || (hasFlag(rest, "d", "--delete") && hasFlag(rest, "f", "--force")) ? "git branch -D" : undefined;
    case "filter-branch":
    case "filter-repo":
      return `git ${sub}`;
    case "reflog":
      return ops[0] === "expire" || ops[0] === "delete" ? `git reflog ${ops[0]}` : undefined;
    case "stash":
      return ops[0] === "clear" || ops[0] === "drop" ? `git stash ${ops[0]}` : undefined;
    default:
      return undefined;
  }
}

/** Skips git's global options (`-C dir`, `-c k=v`, `--no-pager`, `--git-dir=…`). */
export function gitSubcommand(args: string[]): { sub: string; rest: string[]; globals: string[] } {
  const globals: string[] = [];
  let i = 0;
  while (i < args.length) {
    const a = args[i] as string;
    if (a === "-C" || a === "-c" || a === "--git-dir" || a === "--work-tree" || a === "--namespace") {
      globals.push(a, args[i + 1] ?? "");
      i += 2;
    } else if (a.startsWith("-")) {
      globals.push(a);
      i++;
    } else break;
  }
  return { sub: args[i] ?? "", rest: args.slice(i + 1), globals };
}
