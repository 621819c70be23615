/** Builds a real Session (real tools, policy, pipeline) in a temp project, driven by a ScriptedProvider. */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load-config.ts";
import { wireSession, type WiredSession } from "../../src/cli/wire-session.ts";
import type { AgentEvent, PermissionMode } from "../../src/protocol/events.ts";
import { ScriptedProvider, type ScriptedReply } from "./scripted-provider.ts";

export interface Harness {
  project: string;
  home: string;
  provider: ScriptedProvider;
  wired: WiredSession;
  events: AgentEvent[];
  denied: string[];
  of<T extends AgentEvent["type"]>(type: T): Array<Extract<AgentEvent, { type: T }>>;
  run(text: string): Promise<void>;
  cleanup(): void;
}

export function harness(opts: { replies: ScriptedReply[]; nativeTools?: boolean; mode?: PermissionMode; interactive?: boolean; env?: Record<string, string>; maxTurns?: number }): Harness {
  const root = mkdtempSync(join(tmpdir(), "chatcli-agent-test-"));
  const project = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  const env: Record<string, string> = { HOME: home, CHATCLI_HOME: join(home, ".chatcli"), TMPDIR: root, PATH: process.env.PATH ?? "/usr/bin:/bin", ...opts.env };
  const cfg = loadConfig({ cwd: project, env, flags: {} });
  const provider = new ScriptedProvider(opts.replies);
  const denied: string[] = [];
  const wired = wireSession({
    cfg,
    resolved: {
      providerId: "SCRIPTED",
      provider,
      baseUrl: "scripted://",
      model: "scripted-model",
      info: { id: "scripted-model", contextWindow: 32768, supportsTools: opts.nativeTools ?? true },
    },
    permissionMode: opts.mode ?? "default",
    interactive: opts.interactive ?? false,
    ...(opts.maxTurns ? { maxTurns: opts.maxTurns } : {}),
    onUnansweredApproval: (action) => denied.push(action),
  });
  const events: AgentEvent[] = [];
  wired.session.subscribe((e) => events.push(e));
  return {
    project,
    home,
    provider,
    wired,
    events,
    denied,
    of: <T extends AgentEvent["type"]>(type: T) => events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type),
    run: async (text: string) => {
      wired.session.submit({ type: "user_input", text });
      await wired.session.idle();
    },
    cleanup: () => {
      wired.dispose();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
