/**
 * Custom slash commands: `<project>/.chatcli/commands/*.md`, `<project>/.claude/commands/*.md`,
 * `~/.chatcli/commands/*.md`, `~/.claude/commands/*.md` (first of a name wins). The file name is the command; the
 * body is a prompt template (`$ARGUMENTS`, `$1`…`$9`; `@path` mentions are attached when the prompt is sent, like a
 * typed one); the front matter (optional) gives `description`, `argument-hint`, `model` and `allowed-tools`.
 * A command named like a built-in one is not loaded (reported): built-ins cannot be shadowed.
 */
import { basename, join } from "node:path";
import { t } from "../../i18n/i18n.ts";
import { splitCliArgs } from "../../agent/toolcall/cli-args.ts";
import { nameList } from "../front-matter.ts";
import { discoverEntries, stringField, type Candidate, type Discovered } from "../ext-entries.ts";
import { extDirs, listDir, type ExtRoots, type ExtScope } from "../ext-files.ts";
import { isProviderModel } from "../agents/agent-definition.ts";

export interface CustomCommand {
  name: string;
  description?: string;
  argumentHint?: string;
  /** `PROVIDER:model` for the run this command starts. */
  model?: string;
  /** Narrows the tools of the run this command starts; never grants anything. */
  allowedTools?: string[];
  template: string;
  file: string;
  scope: ExtScope;
  /** The subfolder it sits in (`git` for `commands/git/commit.md`): shown, not part of the name. */
  namespace?: string;
}

/** Command names: what a person can type after `/` (letters, digits, `-`, `_`, `.`, `:`). */
const COMMAND_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

export async function loadCustomCommands(roots: ExtRoots, builtinNames: ReadonlySet<string>): Promise<Discovered<CustomCommand>> {
  const candidates: Candidate[] = [];
  // Files directly in the folder, then one level of subfolders (organisation only: `git/commit.md` is /commit).
  for (const d of extDirs(roots, "commands")) {
    const entries = await listDir(d.dir);
    for (const e of entries) if (isCommandFile(e)) candidates.push({ file: join(d.dir, e.name), scope: d.scope, fallbackName: basename(e.name, ".md") });
    for (const sub of entries) {
      if (!sub.isDir || sub.name.startsWith(".")) continue;
      for (const e of await listDir(join(d.dir, sub.name))) if (isCommandFile(e)) candidates.push({ file: join(d.dir, sub.name, e.name), scope: d.scope, fallbackName: basename(e.name, ".md") });
    }
  }
  const found = await discoverEntries(candidates, "command", validateCommand);
  const warnings = [...found.warnings];
  const entries = found.entries.filter((c) => {
    if (!builtinNames.has(c.name.toLowerCase())) return true;
    warnings.push(t("ext.warn.builtinClash", { name: c.name, file: c.file }));
    return false;
  });
  return { entries, warnings };
}

function isCommandFile(e: { name: string; isFile: boolean }): boolean {
  return e.isFile && e.name.endsWith(".md") && !e.name.startsWith(".");
}

function validateCommand(c: Candidate, data: Record<string, unknown>, body: string, _fm: boolean, raw: Record<string, string>): CustomCommand | { problem: string } {
  const name = c.fallbackName;
  if (!COMMAND_NAME.test(name)) return { problem: t("ext.problem.badCommandName", { name }) };
  const description = stringField(data, "description");
  if (typeof description === "object") return description;
  // A hint is shown as written: `[issue-number]` is a YAML list but means the text.
  const hint = raw["argument-hint"] ?? (Array.isArray(data["argument-hint"]) ? `[${(data["argument-hint"] as unknown[]).join(", ")}]` : stringField(data, "argument-hint"));
  if (typeof hint === "object") return hint;
  const model = stringField(data, "model");
  if (typeof model === "object") return model;
  if (!body.trim()) return { problem: t("ext.problem.emptyBody") };
  const allowed = data["allowed-tools"] === undefined || data["allowed-tools"] === null ? undefined : nameList(data["allowed-tools"], true);
  return {
    name,
    ...(description ? { description } : {}),
    ...(hint ? { argumentHint: hint } : {}),
    ...(model && isProviderModel(model) ? { model } : {}),
    ...(allowed ? { allowedTools: allowed } : {}),
    template: body.trim(),
    file: c.file,
    scope: c.scope,
    ...namespaceOf(c.file),
  };
}

function namespaceOf(file: string): { namespace?: string } {
  const parent = basename(join(file, ".."));
  return parent === "commands" ? {} : { namespace: parent };
}

/**
 * The prompt a command sends: `$ARGUMENTS` is everything typed after the name, `$1`…`$9` its shell-like words
 * (missing ones are empty). A template that uses neither gets the arguments appended, so they are never lost.
 */
export function expandCommand(template: string, args: string): string {
  const trimmed = args.trim();
  const words = trimmed ? splitCliArgs(trimmed) : [];
  let used = false;
  const out = template.replace(/\$ARGUMENTS\b|\$([1-9])(?![0-9])/g, (m, n: string | undefined) => {
    used = true;
    if (m === "$ARGUMENTS") return trimmed;
    return words[Number(n) - 1] ?? "";
  });
  if (used || !trimmed) return out;
  return `${out}\n\nARGUMENTS: ${trimmed}`;
}
