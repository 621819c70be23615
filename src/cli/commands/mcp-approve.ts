/**
 * `chatcli mcp approve [NAME…]`: approves the project's `.mcp.json` servers for this project (all pending ones when no
 * name is given), showing what each one runs; `--revoke NAME…` forgets approvals. An approval covers the entry as it
 * is now (approvals.ts hashes it): a changed entry waits for approval again.
 */
import { t } from "../../i18n/i18n.ts";
import { approve, isApproved, revoke } from "../../mcp/approvals.ts";
import { readScope } from "../../mcp/config-files.ts";
import { parseOptions } from "./mcp-args.ts";
import type { McpCliContext } from "./mcp-context.ts";
import { targetOf, transportOf } from "./mcp-show.ts";

export function mcpApprove(ctx: McpCliContext, words: string[]): number {
  const p = parseOptions(words, [{ name: "revoke" }]);
  const project = readScope("project", ctx.home, ctx.projectRoot);
  if (project.error) {
    ctx.err.write(`chatcli: ${t("mcp.cannotRead", { file: project.file, error: project.error })}\n`);
    return 1;
  }
  const opts = { home: ctx.home };
  const names = p.positionals;
  for (const n of names) {
    if (!project.servers.some((s) => s.name === n)) {
      ctx.err.write(`chatcli: ${t("mcp.approve.notInProject", { name: n, file: project.file })}\n`);
      return 1;
    }
  }
  if (p.flags.has("revoke")) {
    const targets = names.length ? names : project.servers.map((s) => s.name);
    for (const n of targets) if (revoke(ctx.projectRoot, n, opts)) ctx.out.write(`${t("mcp.approve.revoked", { name: n })}\n`);
    return 0;
  }
  const chosen = project.servers.filter((s) => (names.length ? names.includes(s.name) : true));
  let failed = false;
  let approved = 0;
  for (const s of chosen) {
    if (!s.entry) {
      ctx.err.write(`chatcli: ${t("mcp.invalidEntry", { name: s.name, file: s.file, error: s.error ?? "" })}\n`);
      failed = true;
      continue;
    }
    if (isApproved(ctx.projectRoot, s.name, s.entry, opts)) {
      if (names.length) ctx.out.write(`${t("mcp.approve.already", { name: s.name })}\n`);
      continue;
    }
    approve(ctx.projectRoot, s.name, s.entry, opts);
    approved++;
    ctx.out.write(`${t("mcp.approve.done", { name: s.name, transport: transportOf(s.entry), target: targetOf(s.entry), project: ctx.projectRoot })}\n`);
  }
  if (!names.length && !approved && !failed) ctx.out.write(`${t("mcp.approve.nonePending", { file: project.file })}\n`);
  return failed ? 1 : 0;
}
