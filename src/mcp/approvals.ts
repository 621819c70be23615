/**
 * The approval store for project MCP servers. A project's `.mcp.json` is repository content (untrusted): none of
 * its servers starts until the user approved that exact entry once for that project. Approvals are kept in
 * `<chatcliHome>/mcp-approvals.json` (0600, written atomically), keyed by the project's real path and the server
 * name, holding a hash of the entry: a changed entry (another command, argument, env, url…) needs approval again.
 *
 * Users: the runtime (src/mcp/runtime/: which project servers may start), the TUI (asks when it first sees
 * pending ones) and `chatcli mcp approve [NAME]`. Every function takes an optional `{ home }` (default: chatcli's
 * home from the environment: CHATCLI_HOME or ~/.chatcli). A missing or unreadable store counts as "nothing
 * approved" (fail closed); a store that cannot be written makes `approve` throw.
 */
import { createHash } from "node:crypto";
import { readFileSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { chatcliHome } from "../config/paths.ts";
import type { McpServerConfig } from "./server-config.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";

export const APPROVALS_FILE = "mcp-approvals.json";

export interface ApprovalStoreOptions {
  /** chatcli's home directory; default chatcliHome(process.env). */
  home?: string;
}

const storeSchema = z.object({
  v: z.literal(1),
  projects: z.record(z.string(), z.record(z.string(), z.object({ hash: z.string(), approvedAt: z.string().optional() }))),
});
type Store = z.infer<typeof storeSchema>;

/** A stable hash of an entry: keys sorted at every level, so reordering the JSON does not ask again. */
export function entryHash(entry: McpServerConfig | Record<string, unknown>): string {
  return createHash("sha256").update(canonicalJson(entry)).digest("hex");
}

/** The key a project's approvals live under: its real path (a symlinked checkout is the same project). */
export function projectKey(projectRoot: string): string {
  try {
    return realpathSync(projectRoot);
  } catch {
    return resolve(projectRoot);
  }
}

export function approvalsPath(opts: ApprovalStoreOptions = {}): string {
  return join(opts.home ?? chatcliHome(process.env), APPROVALS_FILE);
}

/** Whether this exact entry was approved for this project. */
export function isApproved(projectRoot: string, name: string, entry: McpServerConfig, opts: ApprovalStoreOptions = {}): boolean {
  const rec = readStore(opts).projects[projectKey(projectRoot)]?.[name];
  return rec !== undefined && rec.hash === entryHash(entry);
}

/** Records the approval of this entry for this project (replacing an older one for the same name). Throws when the store cannot be written. */
export function approve(projectRoot: string, name: string, entry: McpServerConfig, opts: ApprovalStoreOptions = {}): void {
  const store = readStore(opts);
  const key = projectKey(projectRoot);
  const project = { ...(store.projects[key] ?? {}) };
  project[name] = { hash: entryHash(entry), approvedAt: new Date().toISOString() };
  writeStore({ v: 1, projects: { ...store.projects, [key]: project } }, opts);
}

/** Forgets an approval (the server will be asked about again). Returns whether one was removed. */
export function revoke(projectRoot: string, name: string, opts: ApprovalStoreOptions = {}): boolean {
  const store = readStore(opts);
  const key = projectKey(projectRoot);
  const project = store.projects[key];
  if (!project || !(name in project)) return false;
  const { [name]: _removed, ...rest } = project;
  writeStore({ v: 1, projects: { ...store.projects, [key]: rest } }, opts);
  return true;
}

/** The names of `servers` (a project's `.mcp.json` entries) not approved as they are now, in their order. */
export function pendingServers(projectRoot: string, servers: Readonly<Record<string, McpServerConfig>>, opts: ApprovalStoreOptions = {}): string[] {
  const approved = readStore(opts).projects[projectKey(projectRoot)] ?? {};
  return Object.entries(servers)
    .filter(([name, entry]) => approved[name]?.hash !== entryHash(entry))
    .map(([name]) => name);
}

function readStore(opts: ApprovalStoreOptions): Store {
  try {
    const parsed = storeSchema.safeParse(JSON.parse(readFileSync(approvalsPath(opts), "utf8")) as unknown);
    return parsed.success ? parsed.data : { v: 1, projects: {} };
  } catch {
    return { v: 1, projects: {} };
  }
}

function writeStore(store: Store, opts: ApprovalStoreOptions): void {
  const file = approvalsPath(opts);
  writeFileAtomic(file, JSON.stringify(store, null, 2) + "\n", { dirMode: 0o700 });
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
