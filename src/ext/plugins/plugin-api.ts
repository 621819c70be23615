/**
 * The plugin API: what `import { definePlugin, defineTool, z } from "chatcli/plugin"` gives a plugin (the binary
 * provides that module itself, plugin-module.ts, so plugins need no node_modules and no build step).
 * `defineTool` is the one the built-in tools use (src/tool/tool.ts), so a plugin tool goes through the same
 * permission policy, result budgets and events; `providers` take the built-ins' ProviderDefinition contract.
 */
import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../tool/tool.ts";
import type { ProviderDefinition } from "../../llm/provider.ts";

export interface ToolBeforeContext {
  tool: string;
  input: Record<string, unknown>;
  callId: string;
}
/** `block` refuses the call (the reason goes to the model); `input` replaces the arguments; `context` is a note for the model. */
export type ToolBeforeResult = { block?: string; input?: Record<string, unknown>; context?: string } | void;
export interface ToolAfterContext extends ToolBeforeContext {
  output: string;
  isError: boolean;
}
export type ToolAfterResult = { context?: string } | void;
export type PromptSubmitResult = { block?: string; context?: string } | void;
export type SessionStartResult = { context?: string } | void;

export interface PluginHooks {
  "tool.before"?: (ctx: ToolBeforeContext) => ToolBeforeResult | Promise<ToolBeforeResult>;
  "tool.after"?: (ctx: ToolAfterContext) => ToolAfterResult | Promise<ToolAfterResult>;
  "prompt.submit"?: (ctx: { prompt: string }) => PromptSubmitResult | Promise<PromptSubmitResult>;
  "session.start"?: (ctx: { sessionId: string; cwd: string; source: string }) => SessionStartResult | Promise<SessionStartResult>;
}

export interface PluginCommand {
  /** The slash command's name, without the `/`. */
  name: string;
  description?: string;
  /** The text shown to the user. */
  run(args: string): string | Promise<string>;
}

export interface PluginDefinition {
  name: string;
  version?: string;
  description?: string;
  tools?: ToolDefinition[];
  commands?: PluginCommand[];
  hooks?: PluginHooks;
  providers?: ProviderDefinition[];
}

export function definePlugin(p: PluginDefinition): PluginDefinition {
  return p;
}

/** The exports of the virtual module `chatcli/plugin`. */
export const pluginModuleExports = { definePlugin, defineTool, z };
