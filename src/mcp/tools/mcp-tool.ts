/**
 * An MCP server's tool as a chatcli ToolDefinition named `mcp__<server>__<tool>`: it goes through the same tool
 * host as the builtins (the permission policy, default ask; rules such as `mcp__github__*`), the same per-tool
 * cap and overflow file, and never throws (a server error, a timeout, a crash mid-call all become error results).
 */
import { z } from "zod";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { capText, DEFAULT_MAX_RESULT_CHARS, errorOutput, type ToolDefinition, type ToolOutput } from "../../tool/tool.ts";
import { safeHead } from "../../util/text.ts";
import { formatCallResult } from "./format-result.ts";
import { capResultImages } from "./result-images.ts";
import { restoreJsonStringArgs } from "../schema-normalize.ts";
import { NETWORK_ERROR } from "../runtime/server-connection.ts";

export const MCP_TOOL_PREFIX = "mcp__";

/** Provider-safe name (`[A-Za-z0-9_-]`, at most 64 characters): other characters become `_`, a long one is cut and hashed. */
export function mcpToolName(server: string, tool: string): string {
  const clean = `${MCP_TOOL_PREFIX}${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_");
  if (clean.length <= 64) return clean;
  let h = 0;
  for (const ch of clean) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return `${clean.slice(0, 55)}_${h.toString(36).slice(0, 8)}`;
}

export interface McpToolOptions {
  server: string;
  tool: Tool;
  /** The input schema as normalised for the current provider. */
  schema: Record<string, unknown>;
  jsonStringPaths?: string[][];
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

const looseInput = z.looseObject({});

export function createMcpTool(o: McpToolOptions): ToolDefinition {
  const name = mcpToolName(o.server, o.tool.name);
  const description = describe(o);
  const spec = { name, description, parameters: o.schema };
  const parse = (raw: unknown): { ok: true; args: Record<string, unknown> } | { ok: false; message: string } => {
    let value = raw;
    if (typeof raw === "string") {
      if (raw.trim() === "") value = {};
      else {
        try {
          value = JSON.parse(raw) as unknown;
        } catch (err) {
          return { ok: false, message: `The arguments are not valid JSON (${err instanceof Error ? err.message : String(err)}). Send a JSON object with the tool's parameters.` };
        }
      }
    }
    if (value === undefined || value === null) value = {};
    if (typeof value !== "object" || Array.isArray(value)) return { ok: false, message: `The arguments of ${name} must be a JSON object.` };
    return { ok: true, args: restoreJsonStringArgs(value, o.jsonStringPaths) as Record<string, unknown> };
  };
  return {
    name,
    description,
    readOnly: o.tool.annotations?.readOnlyHint === true,
    maxResultChars: DEFAULT_MAX_RESULT_CHARS,
    input: looseInput,
    mcp: { server: o.server, tool: o.tool.name },
    spec: () => spec,
    describe: (raw) => {
      const p = parse(raw);
      return p.ok ? `${o.server} · ${o.tool.name} ${safeHead(JSON.stringify(p.args), 120)}` : `${o.server} · ${o.tool.name}`;
    },
    approvalAction: (args) => `${o.server} · ${o.tool.name} ${safeHead(JSON.stringify(args, null, 1).replace(/\n\s*/g, " "), 600)}`,
    prepare: (raw) => parse(raw),
    preview: async () => undefined,
    run: async (raw, ctx) => {
      if (ctx.signal.aborted) return errorOutput("Canceled before it started.", "Canceled");
      const p = parse(raw);
      if (!p.ok) return errorOutput(p.message, "invalid_args");
      let out: ToolOutput;
      try {
        const f = formatCallResult(await o.call(o.tool.name, p.args, ctx.signal));
        const images = f.images.length ? await capResultImages(f.images) : [];
        out = {
          text: f.text,
          ...(f.isError ? { isError: true, errorCode: "mcp_tool_error" } : {}),
          details: { ...f.details, server: o.server, tool: o.tool.name },
          ...(images.length ? { images } : {}),
        };
      } catch (err) {
        out = callFailure(err, ctx.signal, o.server);
      }
      const capped = capText(out.text, DEFAULT_MAX_RESULT_CHARS, ctx.saveOverflow);
      if (!capped.truncated) return out;
      return { ...out, text: capped.text, details: { ...(out.details ?? {}), truncated: true, originalChars: out.text.length, ...(capped.savedPath ? { savedPath: capped.savedPath } : {}) } };
    },
  };
}

function describe(o: McpToolOptions): string {
  const own = (o.tool.description ?? o.tool.title ?? "").trim();
  return `${own || o.tool.name} (MCP server "${o.server}")`;
}

function callFailure(err: unknown, signal: AbortSignal, server: string): ToolOutput {
  const message = err instanceof Error ? err.message : String(err);
  if (signal.aborted) return errorOutput("Canceled: the call was interrupted (the server was told to cancel it).", "Canceled", { server });
  const code = (err as { code?: unknown }).code;
  if (code === -32001 || /timed out/i.test(message)) return errorOutput(`The MCP server "${server}" did not answer in time; the call was canceled. ${message}`, "Timeout", { server });
  if (code === -32000 || /connection closed|not connected|not running/i.test(message) || NETWORK_ERROR.test(message)) {
    return errorOutput(`The MCP server "${server}" stopped during the call (${message}). It is being restarted; try again in a moment or use another approach.`, "mcp_server_down", { server });
  }
  return errorOutput(`The MCP server "${server}" returned an error: ${message}`, "mcp_error", { server });
}
