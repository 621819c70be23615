/**
 * `mcp_search`: the one tool offered in place of a large MCP catalog (issue 17, context cost). It searches the
 * MCP tools by name and description and returns the full schemas of the best matches; those tools are offered
 * (callable) from the next request on. Provider-agnostic: it is an ordinary tool, so it works with any model,
 * on native tool calls or the text protocol. Reads only the local catalog (the policy treats it as a read).
 */
import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../tool/tool.ts";

export const MCP_SEARCH_TOOL = "mcp_search";

export interface McpSearchOptions {
  catalog(): readonly ToolDefinition[];
  activate(names: readonly string[]): void;
}

const DEFAULT_LIMIT = 5;

export function createMcpSearchTool(o: McpSearchOptions): ToolDefinition {
  return defineTool({
    name: MCP_SEARCH_TOOL,
    description:
      "Search the tools of the connected MCP servers (they are not listed individually to save context). Give keywords (what you want to do, a service or a tool name); returns the matching tools with their full parameter schemas, and those tools become callable by their exact names. `select:name1,name2` loads tools by exact name.",
    readOnly: true,
    input: z.object({
      query: z.string().min(1).describe("Keywords, a tool name, or select:<name>[,<name>…]"),
      limit: z.number().int().min(1).max(20).optional().describe("At most this many tools (default 5)"),
    }),
    argAliases: { q: "query", keywords: "query", search: "query" },
    title: (a) => `mcp_search ${a.query}`,
    execute: async (a) => {
      const catalog = o.catalog();
      const found = a.query.startsWith("select:") ? selectByName(catalog, a.query.slice(7)) : rank(catalog, a.query).slice(0, a.limit ?? DEFAULT_LIMIT);
      if (found.length === 0) {
        const servers = [...new Set(catalog.map((t) => t.mcp?.server).filter(Boolean))].join(", ");
        return { text: `No MCP tool matches "${a.query}". ${catalog.length} tools from: ${servers || "no connected server"}. Try other keywords (a service, a verb, a noun).`, details: { matches: 0 } };
      }
      o.activate(found.map((t) => t.name));
      const body = found.map((t) => JSON.stringify({ name: t.name, description: t.description, parameters: t.spec().parameters })).join("\n");
      return { text: `${found.length} MCP tool(s) found; they are now callable by these exact names:\n${body}`, details: { matches: found.length, tools: found.map((t) => t.name) } };
    },
  });
}

function selectByName(catalog: readonly ToolDefinition[], list: string): ToolDefinition[] {
  const names = list.split(",").map((s) => s.trim()).filter(Boolean);
  return catalog.filter((t) => names.includes(t.name) || (t.mcp && names.includes(t.mcp.tool)));
}

/** Score: every query word found in the name counts 3, in the description 1; an exact name match wins. */
function rank(catalog: readonly ToolDefinition[], query: string): ToolDefinition[] {
  const q = query.toLowerCase().trim();
  const words = q.split(/[\s,_\-./]+/).filter((w) => w.length > 1);
  const scored = catalog.map((t) => {
    const name = t.name.toLowerCase();
    const desc = t.description.toLowerCase();
    let score = name === q || t.mcp?.tool.toLowerCase() === q ? 100 : 0;
    for (const w of words) {
      if (name.includes(w)) score += 3;
      if (desc.includes(w)) score += 1;
    }
    return { t, score };
  });
  return scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score).map((s) => s.t);
}
