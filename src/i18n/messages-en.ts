/** English, the source of every user-facing string (see messages.ts), one file per area. */
import { enCli } from "./messages-en-cli.ts";
import { enTui } from "./messages-en-tui.ts";
import { enAgent } from "./messages-en-agent.ts";
import { enPermission } from "./messages-en-permission.ts";
import { enHooks } from "./messages-en-hooks.ts";
import { enDaily } from "./messages-en-daily.ts";
import { enExt } from "./messages-en-ext.ts";
import { enDailyB } from "./messages-en-daily-b.ts";
import { enMcpRuntime } from "./messages-en-mcp-runtime.ts";
import { enMcpCli } from "./messages-en-mcp-cli.ts";
import { enK8s } from "./messages-en-k8s.ts";
import { enK8sSession } from "./messages-en-k8s-session.ts";
import { enK8sFaults } from "./messages-en-k8s-faults.ts";
import { enMemory } from "./messages-en-memory.ts";
import { enSubagents } from "./messages-en-subagents.ts";
import { enAcp } from "./messages-en-acp.ts";
import { enServer } from "./messages-en-server.ts";
import { enServerLimits } from "./messages-en-server-limits.ts";
import { enServerHttp } from "./messages-en-server-http.ts";
import { enConnect } from "./messages-en-connect.ts";

export const en = {
  ...enCli,
  ...enTui,
  ...enAgent,
  ...enPermission,
  ...enHooks,
  ...enDaily,
  ...enExt,
  ...enDailyB,
  ...enMcpRuntime,
  ...enMcpCli,
  ...enK8s,
  ...enK8sSession,
  ...enK8sFaults,
  ...enMemory,
  ...enSubagents,
  ...enServer,
  ...enServerLimits,
  ...enServerHttp,
  ...enAcp,
  ...enConnect,
} as const;
