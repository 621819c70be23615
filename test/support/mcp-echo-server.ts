/**
 * A small MCP server over stdio (the SDK's server side), run as `bun test/support/mcp-echo-server.ts [N]`:
 * tools `echo` and `tool_1` … `tool_N` (default 2 tools in all).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const extra = Number(process.argv[2] ?? "1");
const server = new McpServer({ name: "echo", version: "1.0.0" });
server.registerTool("echo", { description: "Echo the text", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text }] }));
for (let i = 1; i <= extra; i++) server.registerTool(`tool_${i}`, { description: `Tool ${i}` }, async () => ({ content: [{ type: "text", text: String(i) }] }));
await server.connect(new StdioServerTransport());
