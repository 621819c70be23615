/**
 * The dangerous-command block: commands denied whatever the rules or the permission mode say (even bypass).
 * Works on the parsed script (parse-shell.ts) plus every wrapped command (command-view.ts), so quoting tricks
 * (`'r''m'`, `\rm`, `$'\x72m'`), wrappers (`sudo`, `env`, `xargs`, `bash -c`, `eval`) and lists (`ls; rm -rf ~`)
 * do not hide anything. Returns a short reason, or undefined.
 */
import type { ShellScript, SimpleCommand } from "../shell/shell-types.ts";
import { argvVariants, SHELLS, unwrapArgv, unwrapScript, unwrapSimple, type CommandView, type Unwrapped } from "./command-view.ts";
import { isCriticalPath, isDevicePath, isSystemWriteTarget } from "./paths.ts";
import { writtenFiles } from "./written-files.ts";
import { msg, type Localized } from "../../i18n/i18n.ts";

/** A finding that is a command line and nothing else: the same words in every language. */
const code = (command: string): Localized => msg("danger.command", { command });

export interface ThreatOptions {
  /** The user's real home directory, so `rm -rf /home/me` is recognized. */
  userHome?: string;
}

const DOWNLOADERS = new Set(["curl", "wget", "fetch", "aria2c", "http", "https", "lwp-download", "lynx", "xh"]);
const INTERPRETERS = new Set([
  ...SHELLS, "python", "python2", "python3", "perl", "ruby", "node", "nodejs", "bun", "deno", "php", "lua", "Rscript", "osascript",
]);
const EVALUATORS = new Set(["eval", "source", "."]);
const OUTPUT_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&"]);
const MAX_DEPTH = 6;

export function findDangerous(script: ShellScript, opts: ThreatOptions = {}, depth = 0): Localized | undefined {
  if (depth > MAX_DEPTH) return undefined;
  for (const f of script.functions) {
    if (f.body.filter((c) => c.argv[0] === f.name).length >= 2) return msg("danger.forkBomb", { name: f.name });
  }
  const unwrapped = unwrapScript(script);
  const fetchIdx = unwrapped.findIndex((u) => u.views.some((v) => DOWNLOADERS.has(v.name)));
  // Where an earlier `cd` went, when that is a critical directory (`cd / && rm -rf *`).
  let cwdCritical: string | undefined;
  for (let i = 0; i < script.commands.length; i++) {
    const cmd = script.commands[i] as SimpleCommand;
    const u = unwrapped[i] as Unwrapped;
    for (const v of u.views) {
      if (v.name === "cd" || v.name === "pushd") {
        const target = operandsOf(v.args)[0] ?? "~";
        cwdCritical = isCriticalPath(target, opts.userHome) ? target : target.startsWith("/") ? undefined : cwdCritical;
      } else if (cwdCritical !== undefined && v.name === "rm" && hasFlag(v.args, "rR", "--recursive")) {
        return msg("danger.recursiveInside", { path: cwdCritical });
      }
    }
    const redirect = dangerousRedirect(cmd);
    if (redirect) return redirect;
    if (script.features.has("pipe") && fetchIdx >= 0 && fetchIdx < i && u.views.some((v) => isStdinInterpreter(v))) {
      return msg("danger.pipedDownload");
    }
    if (runsDownloadedSubstitution(cmd, u)) return msg("danger.runDownload");
    const r = findInUnwrapped(u, opts, depth);
    if (r) return r;
  }
  return undefined;
}

/** For a command line that did not parse: blocklist over the rough split. */
export function findDangerousRough(rough: string[][], opts: ThreatOptions = {}): Localized | undefined {
  const u: Unwrapped = { views: [], scripts: [], rough: [] };
  for (const argv of rough) {
    const first = argv[0] ?? "";
    if (isDevicePath(first)) return msg("danger.writeDevice", { path: first });
    unwrapArgv(argv, [], 0, u);
    for (const v of argvVariants(argv)) unwrapArgv(v, [], 0, u);
  }
  const names = new Set(u.views.map((v) => v.name));
  if ([...names].some((n) => DOWNLOADERS.has(n)) && [...names].some((n) => INTERPRETERS.has(n) || EVALUATORS.has(n))) {
    return msg("danger.runDownload");
  }
  return findInUnwrapped(u, opts, 0);
}

function findInUnwrapped(u: Unwrapped, opts: ThreatOptions, depth: number): Localized | undefined {
  for (const v of u.views) {
    const r = dangerousView(v, opts);
    if (r) return r;
  }
  for (const s of u.scripts) {
    const r = findDangerous(s, opts, depth + 1);
    if (r) return r;
  }
  return u.rough.length > 0 ? findDangerousRough(u.rough, opts) : undefined;
}

function dangerousRedirect(cmd: SimpleCommand): Localized | undefined {
  for (const r of cmd.redirects) {
    const t = r.target.value;
    if (t.includes("/dev/tcp/") || t.includes("/dev/udp/")) return msg("danger.netRedirect");
    if (!OUTPUT_OPS.has(r.op)) continue;
    if (isDevicePath(t)) return msg("danger.writeDevice", { path: t });
    if (isSystemWriteTarget(t)) return msg("danger.writeSystem", { path: t });
  }
  return undefined;
}

function isStdinInterpreter(v: CommandView): boolean {
  if (!INTERPRETERS.has(v.name)) return false;
  const operands = v.args.filter((a) => !a.startsWith("-"));
  return operands.length === 0 || v.args.includes("-") || v.args.includes("-s");
}

/** `bash -c "$(curl …)"`, `bash <(curl …)`, `eval "$(wget -O- …)"`, `source <(curl …)`. */
function runsDownloadedSubstitution(cmd: SimpleCommand, u: Unwrapped): boolean {
  if (!u.views.some((v) => INTERPRETERS.has(v.name) || EVALUATORS.has(v.name))) return false;
  return cmd.words.some((w) => w.substitutions.some((s) => scriptDownloads(s)));
}

function scriptDownloads(s: ShellScript): boolean {
  return s.commands.some((c) => unwrapSimple(c).views.some((v) => DOWNLOADERS.has(v.name)));
}

function dangerousView(v: CommandView, opts: ThreatOptions): Localized | undefined {
  const { name, args } = v;
  const operands = operandsOf(args);
  for (const a of args) {
    if (a.includes("/dev/tcp/") || a.includes("/dev/udp/")) return msg("danger.netRedirect");
  }
  if (name.startsWith("mkfs") || ["mke2fs", "mkswap", "wipefs", "mkntfs", "newfs", "mkdosfs"].includes(name)) {
    return msg("danger.format", { name });
  }
  const written = systemDestination(writtenFiles(name, args));
  if (written) return written;
  switch (name) {
    case "rm":
      if (args.some((a) => a.length >= 4 && "--no-preserve-root".startsWith(a))) return code("rm --no-preserve-root");
      if (hasFlag(args, "rR", "--recursive")) {
        const t = operands.find((o) => isCriticalPath(o, opts.userHome));
        if (t !== undefined) return msg("danger.recursiveOf", { path: t });
      }
      return undefined;
    case "dd": {
      const of = args.find((a) => a.startsWith("of="))?.slice(3);
      return of !== undefined && isDevicePath(of) ? msg("danger.ddDevice", { path: of }) : undefined;
    }
    case "shred":
    case "wipe":
    case "fdisk":
    case "sfdisk":
    case "cfdisk":
    case "parted":
    case "sgdisk":
    case "gdisk":
    case "blkdiscard": {
      const dev = operands.find((o) => isDevicePath(o));
      return dev !== undefined ? msg("danger.onDevice", { name, path: dev }) : undefined;
    }
    case "chmod":
    case "chown":
    case "chgrp": {
      const recursive = hasFlag(args, "R", "--recursive");
      const t = operands.slice(1).find((o) => isCriticalPath(o, opts.userHome) && (recursive || o.replace(/\/+$/, "") === ""));
      return t !== undefined ? msg("danger.on", { name, path: t }) : undefined;
    }
    case "mv": {
      const t = operands.slice(0, -1).find((o) => isCriticalPath(o, opts.userHome));
      if (t !== undefined) return msg("danger.mvOf", { path: t });
      return systemDestination(operands.slice(-1));
    }
    case "cp":
    case "install":
    case "ln":
      return systemDestination(operands.slice(-1));
    case "tee":
    case "truncate":
      return systemDestination(operands);
    case "find": {
      const start: string[] = [];
      for (const a of args) {
        if (a.startsWith("-") || a === "(" || a === "!") break;
        start.push(a);
      }
      const destructive = args.some((a) => a === "-delete" || a.startsWith("-exec") || a.startsWith("-ok") || a.startsWith("-fprint") || a === "-fls");
      const t = start.find((s) => isCriticalPath(s, opts.userHome));
      return destructive && t !== undefined ? msg("danger.find", { path: t }) : undefined;
    }
    case "shutdown":
    case "reboot":
    case "poweroff":
    case "halt":
      return msg("danger.system", { command: name });
    case "init":
    case "telinit":
      return operands[0] === "0" || operands[0] === "6" ? msg("danger.system", { command: `${name} ${operands[0]}` }) : undefined;
    case "systemctl":
      return ["poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"].includes(operands[0] ?? "") ? code(`systemctl ${operands[0]}`) : undefined;
    case "crontab":
      return hasFlag(args, "r", "--remove") ? msg("danger.crontab") : undefined;
    case "iptables":
    case "ip6tables":
      return hasFlag(args, "F", "--flush") ? code(`${name} flush`) : undefined;
    case "nft":
      return operands[0] === "flush" ? code("nft flush") : undefined;
    case "nc":
    case "ncat":
    case "netcat":
      return hasFlag(args, "ec", "--exec") || args.includes("--sh-exec") || args.includes("--lua-exec") ? msg("danger.remoteShell", { name }) : undefined;
    case "kill": {
      const last = args[args.length - 1];
      if (args.length >= 2 && last === "-1") return msg("danger.killAll");
      return operands.includes("1") ? msg("danger.killInit") : undefined;
    }
    default:
      return undefined;
  }
}

function systemDestination(targets: string[]): Localized | undefined {
  const t = targets.find((o) => isSystemWriteTarget(o) || isDevicePath(o));
  return t !== undefined ? msg("danger.writeSystem", { path: t }) : undefined;
}

/** Non-option arguments (everything after `--` counts as an operand). */
export function operandsOf(args: string[]): string[] {
  const out: string[] = [];
  let options = true;
  for (const a of args) {
    if (options && a === "--") options = false;
    else if (!options || !a.startsWith("-") || a === "-") out.push(a);
  }
  return out;
}

/**
 * A short flag among `letters` (alone or in a cluster like `-rf`), or one of the long forms, also when abbreviated
 * as getopt_long allows (`--rec` for `--recursive`; over-matching an ambiguous prefix errs towards "present").
 */
export function hasFlag(args: string[], letters: string, ...long: string[]): boolean {
  for (const a of args) {
    if (a === "--") return false;
    const name = a.split("=")[0] as string;
    if (long.some((l) => l === name || (name.length > 2 && name.startsWith("--") && l.startsWith(name)))) return true;
    if (/^-[A-Za-z0-9]+$/.test(a) && [...letters].some((l) => a.includes(l))) return true;
  }
  return false;
}
