/** The read-only agent tools of an active watch (issue 23): k8s_get, k8s_logs, k8s_events, k8s_describe. */
import type { ToolDefinition } from "../../tool/tool.ts";
import { createK8sDescribeTool } from "./k8s-describe.ts";
import { createK8sEventsTool } from "./k8s-events.ts";
import { createK8sGetTool } from "./k8s-get.ts";
import { createK8sLogsTool } from "./k8s-logs.ts";
import type { K8sToolEnv } from "./tool-env.ts";

export const K8S_TOOL_NAMES = ["k8s_get", "k8s_logs", "k8s_events", "k8s_describe"] as const;

export function createK8sTools(env: K8sToolEnv): ToolDefinition[] {
  return [createK8sGetTool(env), createK8sLogsTool(env), createK8sEventsTool(env), createK8sDescribeTool(env)];
}

export type { K8sToolEnv } from "./tool-env.ts";
