/**
 * `/init` (issue 25) is a read-only agent run that may write one file: AGENTS.md at the project root. While it runs
 * the policy the tool host sees is narrowed: a write or edit of AGENTS.md always asks (the person approves the diff,
 * in every permission mode), any other write is denied, and an exec runs only when the policy allows it and it is
 * read-only. Reads, searches and the todo list go to the policy as usual. The run ends with its `turn.completed`.
 */
import { realpathSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import type { AgentEvent } from "../../protocol/events.ts";
import { msg, render } from "../../i18n/i18n.ts";
import type { PermissionDecision, PermissionPolicy, PermissionRequest } from "../../tool/permission.ts";
import { commandOf, toolKind } from "../../tool/permission/request-view.ts";
import { readOnlyVerdict } from "../../tool/permission/read-only.ts";
import { parseShell } from "../../tool/shell/parse-shell.ts";

export const INIT_FILE = "AGENTS.md";

export interface InitGuard {
  /** The policy to give the tool host: the real one, narrowed while an /init run is on. */
  readonly policy: PermissionPolicy;
  readonly active: boolean;
  /** The next run is the /init run (call right before submitting its prompt, with the session idle). */
  start(): void;
  /** Session events: the run's `turn.completed` ends it. */
  observe(e: AgentEvent): void;
}

export function createInitGuard(inner: PermissionPolicy, o: { projectRoot: string }): InitGuard {
  let active = false;
  const root = realOr(o.projectRoot);
  const decision = (action: PermissionDecision["action"], key: "init.deniedWrite" | "init.deniedExec" | "cmd.init"): PermissionDecision => {
    const reasonText = msg(key);
    return { action, reason: render(reasonText, "en"), reasonText, source: "default" };
  };
  const decide = (req: PermissionRequest): PermissionDecision => {
    const kind = toolKind(req.tool);
    if (kind === "write") return isInitFile(req.path, root) ? decision("ask", "cmd.init") : decision("deny", "init.deniedWrite");
    if (kind !== "exec") return inner.decide(req);
    const d = inner.decide(req);
    if (d.action === "deny") return d;
    const command = commandOf(req) ?? "";
    const parse = parseShell(command);
    return d.action === "allow" && parse.ok && readOnlyVerdict(parse, command).readOnly ? d : decision("deny", "init.deniedExec");
  };
  const policy: PermissionPolicy = {
    get mode() {
      return inner.mode;
    },
    get rules() {
      return inner.rules;
    },
    decide: (req) => (active ? decide(req) : inner.decide(req)),
    remember: (d, req) => inner.remember(d, req),
    suggestPatterns: (req) => inner.suggestPatterns(req),
    setMode: (m) => inner.setMode(m),
    reload: () => inner.reload(),
  };
  return {
    policy,
    get active() {
      return active;
    },
    start() {
      active = true;
    },
    observe(e) {
      if (e.type === "turn.completed") active = false;
    },
  };
}

function isInitFile(path: string | undefined, root: string): boolean {
  if (!path) return false;
  const abs = resolve(root, path);
  return basename(abs) === INIT_FILE && realOr(dirname(abs)) === root;
}

function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/** The /init prompt (English: it is for the model). `existing`: AGENTS.md is already there and is updated. */
export function initPrompt(existing: boolean): string {
  return [
    `Analyse this project and ${existing ? "update" : "write"} ${INIT_FILE} at the project root: the instructions a coding agent (and a new contributor) needs to work here.`,
    "Work read-only first: look at the layout (tree, glob), the README, the package/build files (package.json, Makefile, pyproject.toml, Cargo.toml, go.mod, …), CI configuration and a few representative source and test files. Only read-only commands can run.",
    `Then ${existing ? `edit ${INIT_FILE} to bring it up to date (keep what is still true, and anything written by hand)` : `write ${INIT_FILE}`} with short sections:`,
    "- Build, test and lint commands (exact commands, including how to run a single test);",
    "- Project layout (the main directories and what lives where);",
    "- Conventions (language and style, naming, error handling, how tests are written, commit or PR rules you can see).",
    `Be concise and specific to this project; no generic advice. The user approves the file before it is written. Write no other file.`,
  ].join("\n");
}
