/** Builds a real Session (real tools, policy, pipeline) in a temp project, driven by a ScriptedProvider. */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load-config.ts";
import { wireSession, type WiredSession } from "../../src/cli/wire-session.ts";
import type { AgentEvent, PermissionMode } from "../../src/protocol/events.ts";
import type { LoadedSession, SessionFs } from "../../src/store/session-file.ts";
import { SessionStore } from "../../src/store/session-store.ts";
import { ScriptedProvider, type ScriptedReply } from "./scripted-provider.ts";

export interface Harness {
  /** The temp dir holding project/, home/ and the session workspaces (pass it to a second harness to resume). */
  root: string;
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

export interface HarnessOptions {
  replies: ScriptedReply[];
  nativeTools?: boolean;
  mode?: PermissionMode;
  interactive?: boolean;
  env?: Record<string, string>;
  maxTurns?: number;
  /** Reuse the dirs of an earlier harness (its cleanup removes them). */
  root?: string;
  /** Start from this saved session, as `--resume` does. */
  resume?: LoadedSession;
  /** The file calls of the session store's writers. */
  storeFs?: SessionFs;
}

export function harness(opts: HarnessOptions): Harness {
  const root = opts.root ?? mkdtempSync(join(tmpdir(), "chatcli-agent-test-"));
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
    ...(opts.resume ? { resume: opts.resume } : {}),
    ...(opts.storeFs ? { store: new SessionStore({ home: cfg.home, env, fs: opts.storeFs }) } : {}),
    onUnansweredApproval: (action) => denied.push(action),
  });
  const events: AgentEvent[] = [];
  wired.session.subscribe((e) => events.push(e));
  return {
    root,
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
