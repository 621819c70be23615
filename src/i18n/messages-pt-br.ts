/** Brazilian Portuguese: every key of the English table, same placeholders (a test checks), one file per area. */
import type { MessageKey } from "./messages.ts";
import { ptBRCli } from "./messages-pt-br-cli.ts";
import { ptBRTui } from "./messages-pt-br-tui.ts";
import { ptBRAgent } from "./messages-pt-br-agent.ts";
import { ptBRPermission } from "./messages-pt-br-permission.ts";
import { ptBRHooks } from "./messages-pt-br-hooks.ts";
import { ptBRDaily } from "./messages-pt-br-daily.ts";
import { ptBRExt } from "./messages-pt-br-ext.ts";
import { ptBRDailyB } from "./messages-pt-br-daily-b.ts";
import { ptBRMcpRuntime } from "./messages-pt-br-mcp-runtime.ts";
import { ptBRMcpCli } from "./messages-pt-br-mcp-cli.ts";
import { ptBRK8s } from "./messages-pt-br-k8s.ts";
import { ptBRK8sSession } from "./messages-pt-br-k8s-session.ts";
import { ptBRK8sFaults } from "./messages-pt-br-k8s-faults.ts";
import { ptBRMemory } from "./messages-pt-br-memory.ts";
import { ptBRSubagents } from "./messages-pt-br-subagents.ts";
import { ptBRAcp } from "./messages-pt-br-acp.ts";
import { ptBRServer } from "./messages-pt-br-server.ts";
import { ptBRServerLimits } from "./messages-pt-br-server-limits.ts";
import { ptBRServerHttp } from "./messages-pt-br-server-http.ts";
import { ptBRConnect } from "./messages-pt-br-connect.ts";

export const ptBR: Record<MessageKey, string> = {
  ...ptBRCli,
  ...ptBRTui,
  ...ptBRAgent,
  ...ptBRPermission,
  ...ptBRHooks,
  ...ptBRDaily,
  ...ptBRExt,
  ...ptBRDailyB,
  ...ptBRMcpRuntime,
  ...ptBRMcpCli,
  ...ptBRK8s,
  ...ptBRK8sSession,
  ...ptBRK8sFaults,
  ...ptBRMemory,
  ...ptBRSubagents,
  ...ptBRServer,
  ...ptBRServerLimits,
  ...ptBRServerHttp,
  ...ptBRAcp,
  ...ptBRConnect,
};
