/**
 * The settings file schema (`~/.chatcli/settings.json` and `<project>/.chatcli/settings.json`).
 * Unknown keys are reported as warnings (forward compatibility), wrong types are errors.
 */
import { z } from "zod";
import { permissionModeSchema } from "../protocol/events.ts";
import { mcpServersSchema } from "../mcp/server-config.ts";

export const openAiCompatibleSchema = z.object({
  name: z.string().min(1),
  baseUrl: z.string().url(),
  keyEnv: z.string().optional(),
  models: z.array(z.string()).optional(),
  defaultModel: z.string().optional(),
  /** Subagent requests this server serves at once (issue 20). */
  concurrency: z.number().int().positive().optional(),
});

/** A built-in provider's entry under `providers.<ID>`. */
export const providerEntrySchema = z.object({ concurrency: z.number().int().positive().optional() });

/** `k8s.watch`: the scope of `chatcli watch` / `/watch`; `interval` a duration (`30s`, `2m`) or seconds. */
export const k8sWatchSchema = z
  .object({
    context: z.string().min(1).optional(),
    namespace: z.string().min(1).optional(),
    deployment: z.string().min(1).optional(),
    selector: z.string().min(1).optional(),
    kubeconfig: z.string().min(1).optional(),
    interval: z.union([z.string().regex(/^\d+(ms|s|m|h)?$/, "a duration like 30s, 2m"), z.number().positive()]).optional(),
  })
  .refine((w) => !(w.deployment && w.selector), { message: "give deployment or selector, not both" });

export const notifyModeSchema = z.enum(["bell", "osc", "off"]);

export const settingsSchema = z.object({
  provider: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  /** Fallback chain entries, `PROVIDER[:model]`. */
  fallback: z.array(z.string().min(1)).optional(),
  /**
   * Fast model for tool-use summaries: `PROVIDER:model`, `PROVIDER:model@http://host:port`, or
   * `{ "model": "PROVIDER:model", "baseUrl": "http://host:port" }` (its own endpoint, e.g. a second Ollama host).
   */
  fastModel: z.union([z.string().min(1), z.object({ model: z.string().min(1), baseUrl: z.string().url().optional() })]).optional(),
  contextWindow: z.number().int().positive().optional(),
  permissionMode: permissionModeSchema.optional(),
  language: z.enum(["en", "pt-BR"]).optional(),
  ui: z
    .object({
      screen: z.enum(["fullscreen", "inline"]).optional(),
      mode: z.enum(["full", "compact"]).optional(),
      /** The palette: `auto` detects the terminal background (OSC 11, COLORFGBG). */
      theme: z.enum(["light", "dark", "auto"]).optional(),
    })
    .optional(),
  /** The OS sandbox for exec (issue 14): `mode`, `network` for every command, `env` names passed despite looking secret. */
  sandbox: z
    .object({
      mode: z.enum(["workspace-write", "read-only", "off"]).optional(),
      network: z.boolean().optional(),
      env: z.array(z.string().min(1)).optional(),
    })
    .optional(),
  experimental: z.object({ emitToolUseSummaries: z.boolean().optional() }).optional(),
  /** `openaiCompatible` servers; any other key is a built-in provider id (`OLLAMA`, `OPENAI`, …) with its `concurrency` (issue 20). */
  providers: z.object({ openaiCompatible: z.array(openAiCompatibleSchema).optional() }).catchall(z.union([z.array(openAiCompatibleSchema), providerEntrySchema])).optional(),
  /** Subagents (issue 20): `maxConcurrent` children at once in a session, `maxDepth` nesting, `maxTotal` children per session. */
  agents: z.object({ maxConcurrent: z.number().int().positive().optional(), maxDepth: z.number().int().nonnegative().optional(), maxTotal: z.number().int().positive().optional() }).optional(),
  /** Spending limit in USD (issue 25): a model call that would take the spend over it is not sent. */
  maxBudgetUsd: z.number().positive().optional(),
  /**
   * Issue 25: ring when a long turn ends or an approval waits. `"bell" | "osc" | "off"`, or
   * `{ "mode": …, "afterSeconds": N }` (default bell after 10 s); see src/ui/shared/notifier.ts.
   */
  notify: z.union([notifyModeSchema, z.object({ mode: notifyModeSchema.optional(), afterSeconds: z.number().nonnegative().optional() })]).optional(),
  /** MCP servers (issue 17), keyed by name; see src/mcp/server-config.ts. */
  mcpServers: mcpServersSchema.optional(),
  /** Hooks (issue 19), in Claude Code's shape; read leniently by src/ext/hooks/hook-config.ts (bad entries are warnings). */
  hooks: z.record(z.string(), z.unknown()).optional(),
  /** Claude Code's switch: no hook from any settings file runs. */
  disableAllHooks: z.boolean().optional(),
  /** The fetch tool (issue 25): `false` turns it off; `allowPrivateNetworks` lets it reach loopback/private addresses. */
  webFetch: z.union([z.boolean(), z.object({ allowPrivateNetworks: z.boolean().optional() })]).optional(),
  /** The prompt editor: `vim` starts it in vim mode (normal/insert). */
  editor: z.object({ vim: z.boolean().optional() }).optional(),
  /** Memory (issue 21): `off` | `read-only` | `propose` (default: extracted facts wait in the inbox) | `auto`. */
  memory: z.object({ mode: z.enum(["off", "read-only", "propose", "auto"]).optional() }).optional(),
  /** `chatcli serve` (issue 22): browser origins allowed besides `--allow-origin` (every other Origin gets 403). */
  server: z.object({ allowedOrigins: z.array(z.string()).optional() }).optional(),
  /** Kubernetes (issue 23): `watch` starts the watcher in every session (src/cli/wire-k8s.ts), like `/watch`. */
  k8s: z.object({ watch: k8sWatchSchema.optional() }).optional(),
});
export type Settings = z.infer<typeof settingsSchema>;

export const KNOWN_TOP_LEVEL_KEYS = new Set(Object.keys(settingsSchema.shape));
