/**
 * `@server:uri` in a prompt attaches that MCP resource (resources/read) to the message the model gets, like
 * `@path` does for a file (agent/at-mentions.ts). Only names of configured servers count (`@me:x` where `me` is
 * not a server is left alone); a resource that cannot be read leaves the prompt unchanged and yields a notice.
 */
import { safeHead } from "../../util/text.ts";
import type { McpManager } from "../runtime/mcp-manager.ts";
import { formatResource } from "../tools/format-result.ts";

const MENTION_RE = /(^|[\s(["'])@([A-Za-z0-9_-]{1,64}):(\S+)/g;
const CAP = 50_000;

export interface ExpandedMcpMentions {
  text: string;
  notices: string[];
}

/** The `@server:uri` tokens of `text` that name a configured server. */
export function mcpMentions(text: string, servers: ReadonlySet<string>): { server: string; uri: string; token: string }[] {
  const out: { server: string; uri: string; token: string }[] = [];
  for (const m of text.matchAll(MENTION_RE)) {
    const server = m[2]!;
    const uri = m[3]!.replace(/[.,;:!?)\]}'"]+$/, "");
    if (servers.has(server) && uri) out.push({ server, uri, token: `@${server}:${uri}` });
  }
  return out;
}

export async function expandMcpMentions(text: string, mcp: McpManager, signal: AbortSignal): Promise<ExpandedMcpMentions> {
  const mentions = mcpMentions(text, new Set(mcp.servers.map((s) => s.name)));
  if (mentions.length === 0) return { text, notices: [] };
  await mcp.ready(signal);
  const blocks: string[] = [];
  const notices: string[] = [];
  const seen = new Set<string>();
  for (const m of mentions) {
    if (seen.has(m.token)) continue;
    seen.add(m.token);
    try {
      const r = await mcp.byName(m.server)!.readResource(m.uri, signal);
      const body = r.contents.map((c) => formatResource(c)).join("\n");
      const shown = body.length > CAP ? `${safeHead(body, CAP)}\n[... truncated: the first ${CAP} of ${body.length} characters]` : body;
      blocks.push(`<mcp_resource server="${m.server}" uri="${m.uri}">\n${shown}\n</mcp_resource>`);
    } catch (err) {
      notices.push(`${m.token}: ${err instanceof Error ? err.message : String(err)}; not attached.`);
    }
  }
  return { text: blocks.length ? `${text}\n\n${blocks.join("\n\n")}` : text, notices };
}
