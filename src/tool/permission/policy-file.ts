/**
 * Permission policy files: `<chatcli home>/coder_policy.json` (user) and `<project>/.chatcli/coder_policy.json`
 * (project). Format (the seed's, reference §4.6):
 *
 *   { "rules": [ { "pattern": "exec git status", "action": "allow" },
 *                { "pattern": "write src/**", "action": "allow" },
 *                { "pattern": "exec npm publish*", "action": "deny" } ],
 *     "merge": true }
 *
 * The project file merges over the user file: a project rule replaces a user rule with the same pattern.
 * `"merge": false` in the project file drops the user rules altogether. The seed's `@coder ` prefix is accepted
 * (`@coder read` = `read`). Files are written atomically (temp file + rename), mode 0600 in a 0700 directory.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { withLock } from "../../util/file-lock.ts";
import { dirname, join } from "node:path";
import { z } from "zod";
import { normalizePattern } from "./rule-match.ts";

export const POLICY_FILE_NAME = "coder_policy.json";

export const ruleActionSchema = z.enum(["allow", "ask", "deny"]);
export type RuleAction = z.infer<typeof ruleActionSchema>;

const ruleSchema = z.strictObject({ pattern: z.string().trim().min(1), action: ruleActionSchema });
export const policyFileSchema = z.strictObject({
  rules: z.array(ruleSchema).default([]),
  merge: z.boolean().optional(),
});
export type PolicyFile = z.infer<typeof policyFileSchema>;

export interface PolicyRule {
  /** Normalized pattern. */
  pattern: string;
  action: RuleAction;
  /** File it came from. */
  source: string;
}

/** A policy file that is not valid JSON or does not match the schema; the message names the file and the key. */
export class PolicyFileError extends Error {
  override name = "PolicyFileError";
  constructor(
    readonly file: string,
    readonly key: string | undefined,
    detail: string,
  ) {
    super(`Invalid permission policy file ${file}${key ? ` at "${key}"` : ""}: ${detail}`);
  }
}

export function userPolicyPath(chatcliHome: string): string {
  return join(chatcliHome, POLICY_FILE_NAME);
}

export function projectPolicyPath(projectRoot: string): string {
  return join(projectRoot, ".chatcli", POLICY_FILE_NAME);
}

/** Reads and validates one file; a missing file is an empty policy. Throws PolicyFileError. */
export function readPolicyFile(file: string): PolicyFile | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if (isErrno(e, "ENOENT") || isErrno(e, "ENOTDIR")) return undefined;
    throw new PolicyFileError(file, undefined, `cannot read (${e instanceof Error ? e.message : String(e)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new PolicyFileError(file, undefined, `not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const parsed = policyFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const keys = issue && "keys" in issue && Array.isArray(issue.keys) ? issue.keys.map(String) : [];
    const path = [...(issue?.path ?? []).map(String), ...keys];
    throw new PolicyFileError(file, path.length > 0 ? formatKey(path) : undefined, issue?.message ?? "invalid");
  }
  return parsed.data;
}

/** User rules, then project rules over them (same pattern: project wins). */
export function loadRules(userFile: string, projectFile: string): PolicyRule[] {
  const user = readPolicyFile(userFile);
  const project = readPolicyFile(projectFile);
  const merged = new Map<string, PolicyRule>();
  if (project?.merge !== false) {
    for (const r of user?.rules ?? []) merged.set(normalizePattern(r.pattern), { pattern: normalizePattern(r.pattern), action: r.action, source: userFile });
  }
  for (const r of project?.rules ?? []) merged.set(normalizePattern(r.pattern), { pattern: normalizePattern(r.pattern), action: r.action, source: projectFile });
  return [...merged.values()];
}

/** Adds (or replaces, by pattern) rules in `file`, atomically. Throws PolicyFileError if the file is invalid. */
export function addRules(file: string, rules: ReadonlyArray<{ pattern: string; action: RuleAction }>): void {
  // Two chatcli processes answering "always" at once: the second re-reads under the lock, so neither rule is lost.
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  withLock(`${file}.lock`, () => writeRules(file, rules));
}

function writeRules(file: string, rules: ReadonlyArray<{ pattern: string; action: RuleAction }>): void {
  const current = readPolicyFile(file) ?? { rules: [] };
  const byPattern = new Map(current.rules.map((r) => [normalizePattern(r.pattern), r] as const));
  for (const r of rules) byPattern.set(normalizePattern(r.pattern), { pattern: normalizePattern(r.pattern), action: r.action });
  const next: PolicyFile = { ...current, rules: [...byPattern.values()] };
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${POLICY_FILE_NAME}.${process.pid}.${Date.now().toString(36)}.tmp`);
  writeFileSync(tmp, JSON.stringify(next, null, 2) + "\n", { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

function formatKey(path: string[]): string {
  return path.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
}

function isErrno(e: unknown, code: string): boolean {
  return typeof e === "object" && e !== null && (e as { code?: unknown }).code === code;
}
