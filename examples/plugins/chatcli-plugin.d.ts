// Types of the `chatcli/plugin` module for your editor (the binary provides the module itself at run time).
// Put this file next to your plugin, or point your tsconfig's `paths` at it.
declare module "chatcli/plugin" {
  import type { z as zod } from "zod";
  export const z: typeof zod;

  export interface ToolContext {
    projectRoot: string;
    cwd: string;
    paths: { resolveRead(path: string): string; resolveWrite(path: string): string };
    signal: AbortSignal;
    callId: string;
    env: Record<string, string | undefined>;
    onUpdate?(chunk: string): void;
  }
  export interface ToolOutput {
    text: string;
    isError?: boolean;
    errorCode?: string;
    details?: Record<string, unknown>;
  }
  export interface ToolDefinition {
    readonly name: string;
    readonly description: string;
  }
  export function defineTool<S extends zod.ZodObject<zod.ZodRawShape>>(config: {
    name: string;
    description: string;
    input: S;
    readOnly: boolean;
    maxResultChars?: number;
    title(args: zod.output<S>): string;
    execute(args: zod.output<S>, ctx: ToolContext): Promise<ToolOutput>;
  }): ToolDefinition;

  export interface PluginDefinition {
    name: string;
    version?: string;
    description?: string;
    tools?: ToolDefinition[];
    commands?: Array<{ name: string; description?: string; run(args: string): string | Promise<string> }>;
    hooks?: {
      "tool.before"?(ctx: { tool: string; input: Record<string, unknown>; callId: string }): { block?: string; input?: Record<string, unknown>; context?: string } | void | Promise<{ block?: string; input?: Record<string, unknown>; context?: string } | void>;
      "tool.after"?(ctx: { tool: string; input: Record<string, unknown>; callId: string; output: string; isError: boolean }): { context?: string } | void | Promise<{ context?: string } | void>;
      "prompt.submit"?(ctx: { prompt: string }): { block?: string; context?: string } | void | Promise<{ block?: string; context?: string } | void>;
      "session.start"?(ctx: { sessionId: string; cwd: string; source: string }): { context?: string } | void | Promise<{ context?: string } | void>;
    };
    providers?: unknown[];
  }
  export function definePlugin(p: PluginDefinition): PluginDefinition;
}
