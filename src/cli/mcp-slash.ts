/**
 * The interactive side of MCP (issue 17): `/mcp` (servers with status, tool counts and token cost; `restart NAME`;
 * `approve [NAME]` for a project's `.mcp.json` servers), the server prompts as slash commands
 * `/mcp__<server>__<prompt> [args]` (the prompt's messages are sent as the next user input), and the question the
 * TUI asks when it first sees unapproved project servers.
 */
import type { Session } from "../agent/session/session.ts";
import type { McpManager } from "../mcp/runtime/mcp-manager.ts";
import { serverTarget } from "../mcp/runtime/server-connection.ts";
import { splitCliArgs } from "../agent/toolcall/cli-args.ts";
import { t, type MessageKey } from "../i18n/i18n.ts";
import type { SlashHandler } from "./slash-commands.ts";

const PROMPT_PREFIX = "mcp__";

/** `/mcp` is listed even when no server is configured: it then says how to add one. */
export const MCP_SLASH_COMMAND = {
  name: "mcp",
  get description() {
    return t("mcp.usage");
  },
};

export function createMcpSlash(mcp: McpManager, session: Pick<Session, "submit" | "publish">): SlashHandler & { dynamicCommands(): { name: string; description: string }[] } {
  return {
    commands: [MCP_SLASH_COMMAND],
    dynamicCommands: () => promptCommands(mcp),
    handle(cmd, args) {
      if (cmd === "mcp") return mcpCommand(mcp, args);
      if (cmd.startsWith(PROMPT_PREFIX)) {
        const found = findPrompt(mcp, cmd);
        if (found) return runPrompt(mcp, session, found.server, found.prompt, args);
      }
      return undefined;
    },
  };
}

/** `/mcp` with no argument: one line per server. */
export function mcpStatusText(mcp: McpManager): string {
  const rows = mcp.status();
  if (rows.length === 0) return t("mcp.none");
  const lines = rows.map((r) => {
    const tools = r.state === "connected" ? t("mcp.tools", { count: r.toolCount, tokens: r.tokens }) : "";
    const reason = r.reason ? t("mcp.reason", { reason: r.reason }) : r.state === "unapproved" ? t("mcp.reason", { reason: serverTarget(mcp.byName(r.name)!.entry) }) : "";
    return t("mcp.line", { name: r.name, scope: r.scope, state: t(`mcp.state.${r.state}` as MessageKey), detail: `${tools}${reason}` });
  });
  const deferred = mcp.isDeferred() ? `\n${t("mcp.deferred")}` : "";
  return `${t("mcp.header", { count: rows.length })}\n${lines.join("\n")}${deferred}`;
}

async function mcpCommand(mcp: McpManager, args: string): Promise<string> {
  const [sub = "", name] = args.trim().split(/\s+/).filter(Boolean);
  switch (sub) {
    case "":
    case "list":
      return mcpStatusText(mcp);
    case "restart": {
      if (!name) return t("mcp.usage");
      if (!(await mcp.restart(name))) return t("mcp.unknownServer", { name });
      const st = mcp.status().find((s) => s.name === name)!;
      return t("mcp.restarted", { name, state: t(`mcp.state.${st.state}` as MessageKey), reason: st.reason ? t("mcp.reason", { reason: st.reason }) : "" });
    }
    case "approve": {
      const pending = mcp.unapproved().map((s) => s.name);
      const names = name ? pending.filter((n) => n === name) : pending;
      if (names.length === 0) return name && !mcp.byName(name) ? t("mcp.unknownServer", { name }) : t("mcp.nothingToApprove");
      await mcp.approve(names);
      return `${t("mcp.approved", { names: names.join(", ") })}\n${mcpStatusText(mcp)}`;
    }
    default:
      return t("mcp.usage");
  }
}

/**
 * The TUI's question about a project's unapproved servers (names and commands shown), through the approval box.
 * "Always" approves them for this project (stored) and starts them, "once" starts them for this session only (as the
 * hooks' trust question does); "no" leaves them off (`/mcp approve` later).
 */
export async function askToApproveProjectServers(mcp: McpManager, session: Pick<Session, "requestApproval" | "publish">): Promise<void> {
  const pending = mcp.unapproved();
  if (pending.length === 0) return;
  const lines = pending.map((s) => t("mcp.approveLine", { name: s.name, target: serverTarget(s.entry) }).trim());
  const answer = await session.requestApproval({ tool: "mcp", action: t("mcp.approveTitle"), reason: lines.join("\n") });
  if (answer === "once" || answer === "always") {
    await mcp.approve(
      pending.map((s) => s.name),
      answer === "always",
    );
    session.publish({ type: "notice", level: "info", text: t(answer === "always" ? "mcp.approved" : "mcp.approvedOnce", { names: pending.map((s) => s.name).join(", ") }) });
    return;
  }
  session.publish({ type: "notice", level: "info", text: t("mcp.approveHint") });
}

function promptCommands(mcp: McpManager): { name: string; description: string }[] {
  return mcp.servers.flatMap((s) => s.prompts().map((p) => ({ name: promptCommandName(s.name, p.name), description: p.description ?? p.title ?? p.name })));
}

function promptCommandName(server: string, prompt: string): string {
  return `${PROMPT_PREFIX}${server}__${prompt}`.replace(/[^A-Za-z0-9_-]/g, "_");
}

function findPrompt(mcp: McpManager, cmd: string): { server: string; prompt: { name: string; arguments?: { name: string; required?: boolean }[] } } | undefined {
  for (const s of mcp.servers) for (const p of s.prompts()) if (promptCommandName(s.name, p.name) === cmd) return { server: s.name, prompt: p };
  return undefined;
}

/** Arguments: `key=value` pairs, or positional values in the prompt's declared order. */
async function runPrompt(mcp: McpManager, session: Pick<Session, "submit" | "publish">, server: string, prompt: { name: string; arguments?: { name: string; required?: boolean }[] }, args: string): Promise<string> {
  const words = args.trim() ? splitCliArgs(args.trim()) : [];
  const values: Record<string, string> = {};
  const declared = prompt.arguments ?? [];
  let i = 0;
  for (const w of words) {
    const eq = w.indexOf("=");
    if (eq > 0 && declared.some((d) => d.name === w.slice(0, eq))) values[w.slice(0, eq)] = w.slice(eq + 1);
    else if (declared[i]) values[declared[i++]!.name] = w;
  }
  const r = await mcp.byName(server)!.getPrompt(prompt.name, values);
  const text = r.messages
    .map((m) => (m.content.type === "text" ? m.content.text : m.content.type === "resource" ? JSON.stringify(m.content.resource) : `[${m.content.type}]`))
    .join("\n\n");
  session.submit({ type: "user_input", text });
  return "";
}
