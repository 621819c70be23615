/**
 * When the exec tool must harden git: a line the read-only check accepts and that calls git. Such calls are
 * auto-allowed only on the promise that they cannot run repository-controlled programs, which holds only with
 * util/git-hardening.ts's environment. Lines a person approved run as written (their hooks and pager included).
 */
import { gitHardeningEnv } from "../../util/git-hardening.ts";
import { parseShell } from "../shell/parse-shell.ts";
import { readOnlyVerdict } from "./read-only.ts";

/** True when `command` is a vetted read-only git call (alone or in a read-only pipeline). */
export function isVettedReadOnlyGit(command: string): boolean {
  const parse = parseShell(command);
  if (!parse.ok || !parse.script.commands.some((c) => c.argv[0] === "git")) return false;
  return readOnlyVerdict(parse, command).readOnly;
}

/** The environment to merge over `base` for `command`, or undefined when it needs none. */
export function gitHardeningFor(command: string, base: Readonly<Record<string, string | undefined>> = {}): Record<string, string> | undefined {
  return isVettedReadOnlyGit(command) ? gitHardeningEnv(base) : undefined;
}
