/**
 * `chatcli mcp import [--from claude,cursor,codex,gemini,opencode] [--scope user|project] [--dry-run] [--json]`:
 * reads the other tools' MCP configurations found on this machine (src/mcp/import/sources.ts) and writes ours,
 * reporting what it imported, what it skipped and why, and from where. Existing servers are never overwritten.
 * Servers written into the project's `.mcp.json` from a project file (repository content) still need
 * `chatcli mcp approve`; ones the user's own files define are approved for this project as they are written.
 */
import { homedir } from "node:os";
import { t } from "../../i18n/i18n.ts";
import { editServers, readScope, type EditableScope } from "../../mcp/config-files.ts";
import { planImport, type SkippedServer } from "../../mcp/import/plan.ts";
import { IMPORT_TOOLS, readSources, type ImportTool } from "../../mcp/import/sources.ts";
import { mcpServerSchema } from "../../mcp/server-config.ts";
import { UsageError } from "../args.ts";
import { listOption, parseOptions, scopeOption } from "./mcp-args.ts";
import type { McpCliContext } from "./mcp-context.ts";

export async function mcpImport(ctx: McpCliContext, words: string[]): Promise<number> {
  const p = parseOptions(words, [{ name: "from", value: true, repeat: true }, { name: "scope", short: "s", value: true }, { name: "dry-run" }, { name: "json" }]);
  if (p.positionals.length) throw new UsageError(t("mcp.importUsage"));
  const from = listOption(p, "from");
  for (const f of from ?? []) if (!(IMPORT_TOOLS as readonly string[]).includes(f)) throw new UsageError(t("mcp.import.badFrom", { name: f, list: IMPORT_TOOLS.join(", ") }));
  const forced = scopeOption(p);
  const { reads, looked } = readSources({ userHome: ctx.env.HOME || homedir(), env: ctx.env, projectRoot: ctx.projectRoot }, from as ImportTool[] | undefined);
  for (const r of reads) if (r.error) ctx.err.write(`chatcli: ${t("mcp.cannotRead", { file: r.file, error: r.error })}\n`);

  const scopes = { user: readScope("user", ctx.home, ctx.projectRoot), project: readScope("project", ctx.home, ctx.projectRoot) };
  for (const s of Object.values(scopes)) {
    if (!s.error) continue;
    ctx.err.write(`chatcli: ${t("mcp.cannotRead", { file: s.file, error: s.error })}\n`);
    return 1;
  }
  const existing = { user: namesOf(scopes.user.servers), project: namesOf(scopes.project.servers) };
  const plan = planImport(reads, existing, forced);

  const written: Record<EditableScope, string | undefined> = { user: undefined, project: undefined };
  if (!p.flags.has("dry-run")) {
    for (const target of ["user", "project"] as const) {
      const mine = plan.add.filter((a) => a.target === target);
      if (!mine.length) continue;
      const r = editServers(target, ctx.home, ctx.projectRoot, (servers) => {
        for (const a of mine) servers[a.name] = a.entry;
        return { write: true, result: undefined };
      });
      if (!r.ok) {
        ctx.err.write(`chatcli: ${t("mcp.cannotEdit", { file: r.file, error: r.error })}\n`);
        return 1;
      }
      written[target] = r.file;
    }
    const trusted = plan.add.filter((a) => a.target === "project" && a.fromUserFile);
    if (trusted.length) {
      const { approve } = await import("../../mcp/approvals.ts");
      for (const a of trusted) approve(ctx.projectRoot, a.name, mcpServerSchema.parse(a.entry), { home: ctx.home });
    }
  }

  if (p.flags.has("json")) {
    ctx.out.write(`${JSON.stringify({ dryRun: p.flags.has("dry-run"), imported: plan.add, skipped: plan.skipped, sources: reads.map((r) => ({ tool: r.tool, file: r.file, servers: r.servers.length, ...(r.error ? { error: r.error } : {}) })), looked }, null, 2)}\n`);
    return 0;
  }
  if (!reads.length) {
    const note = scopes.project.servers.length ? `\n${t("mcp.import.projectFileRead", { file: scopes.project.file, count: scopes.project.servers.length })}` : "";
    ctx.out.write(`${t("mcp.import.nothingFound", { files: looked.join(", ") })}${note}\n`);
    return 0;
  }
  const lines: string[] = [];
  const target = (s: EditableScope) => `${s} (${written[s] ?? scopes[s].file})`;
  lines.push(t(p.flags.has("dry-run") ? "mcp.import.wouldImport" : "mcp.import.imported", { count: plan.add.length }));
  for (const a of plan.add) {
    const renamed = a.renamedFrom ? ` ${t("mcp.import.renamed", { from: a.renamedFrom })}` : "";
    lines.push(`  ${a.name}${renamed}  ${t("mcp.import.fromTo", { tool: a.tool, file: a.file, target: target(a.target) })}`);
  }
  if (plan.skipped.length) {
    lines.push(t("mcp.import.skipped", { count: plan.skipped.length }));
    for (const s of plan.skipped) lines.push(`  ${s.name}  ${t("mcp.import.skipFrom", { tool: s.tool, file: s.file, reason: reasonText(s) })}`);
  }
  // Claude Code's (and Cursor's) project file is ours too: nothing to copy, only to approve.
  const alreadyHere = scopes.project.servers.filter((x) => !plan.add.some((a) => a.target === "project" && a.name === x.name));
  if (alreadyHere.length && !from?.length) lines.push(t("mcp.import.projectFileRead", { file: scopes.project.file, count: alreadyHere.length }));
  const pending = plan.add.filter((a) => a.target === "project" && !a.fromUserFile);
  if (pending.length && !p.flags.has("dry-run")) lines.push(t("mcp.import.needsApproval", { names: pending.map((a) => a.name).join(", ") }));
  ctx.out.write(`${lines.join("\n")}\n`);
  return 0;
}

function namesOf(servers: { name: string; raw: unknown }[]): Record<string, unknown> {
  return Object.fromEntries(servers.map((s) => [s.name, s.raw]));
}

function reasonText(s: SkippedServer): string {
  const r = s.reason;
  switch (r.kind) {
    case "exists":
      return t("mcp.import.reasonExists", { scope: r.scope });
    case "same":
      return t("mcp.import.reasonSame", { scope: r.scope });
    case "clash":
      return t("mcp.import.reasonClash", { file: r.file });
    case "duplicate":
      return t("mcp.import.reasonDuplicate", { file: r.file });
    case "unsupported":
      return t("mcp.import.reasonUnsupported", { why: r.why });
  }
}
