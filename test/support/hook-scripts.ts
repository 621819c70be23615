/**
 * Hook commands for tests: each is a real shell script in a temp dir that appends the event JSON it got on stdin
 * to `<dir>/log/<name>.jsonl`, prints the given stdout/stderr and exits with the given code.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface ScriptSpec {
  stdout?: string | Record<string, unknown>;
  stderr?: string;
  exit?: number;
  /** Shell lines run before exiting (after logging). */
  extra?: string;
}

export class HookScripts {
  constructor(readonly dir: string) {
    mkdirSync(join(dir, "log"), { recursive: true });
    mkdirSync(join(dir, "scripts"), { recursive: true });
  }

  /** A command line running a new script `name`. */
  command(name: string, spec: ScriptSpec = {}): string {
    const out = spec.stdout === undefined ? undefined : typeof spec.stdout === "string" ? spec.stdout : JSON.stringify(spec.stdout);
    if (out !== undefined) writeFileSync(join(this.dir, "scripts", `${name}.out`), out);
    if (spec.stderr !== undefined) writeFileSync(join(this.dir, "scripts", `${name}.err`), spec.stderr);
    const log = join(this.dir, "log", `${name}.jsonl`);
    const lines = [
      "#!/bin/sh",
      `cat >> '${log}'`,
      `echo >> '${log}'`,
      ...(out !== undefined ? [`cat '${join(this.dir, "scripts", `${name}.out`)}'`] : []),
      ...(spec.stderr !== undefined ? [`cat '${join(this.dir, "scripts", `${name}.err`)}' >&2`] : []),
      ...(spec.extra ? [spec.extra] : []),
      `exit ${spec.exit ?? 0}`,
    ];
    const file = join(this.dir, "scripts", `${name}.sh`);
    writeFileSync(file, `${lines.join("\n")}\n`);
    chmodSync(file, 0o755);
    return `sh '${file}'`;
  }

  /** The event inputs script `name` received, in order. */
  inputs(name: string): Array<Record<string, unknown>> {
    const file = join(this.dir, "log", `${name}.jsonl`);
    if (!existsSync(file)) return [];
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

/** A `hooks` block: event → [{matcher, hooks: [{type: command, command}]}]. */
export function hooksBlock(entries: Array<{ event: string; matcher?: string; command: string; timeout?: number; failClosed?: boolean }>): Record<string, unknown> {
  const out: Record<string, Array<Record<string, unknown>>> = {};
  for (const e of entries) {
    (out[e.event] ??= []).push({
      ...(e.matcher !== undefined ? { matcher: e.matcher } : {}),
      hooks: [{ type: "command", command: e.command, ...(e.timeout ? { timeout: e.timeout } : {}), ...(e.failClosed ? { failClosed: true } : {}) }],
    });
  }
  return out;
}

/** Writes `settings` as the user settings of a harness root (before `harness({ root })` reads them). */
export function writeUserSettings(root: string, settings: Record<string, unknown>): void {
  const dir = join(root, "home", ".chatcli");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "settings.json"), JSON.stringify(settings, null, 2));
}

export function writeProjectSettings(root: string, settings: Record<string, unknown>): void {
  const dir = join(root, "project", ".chatcli");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "settings.json"), JSON.stringify(settings, null, 2));
}
