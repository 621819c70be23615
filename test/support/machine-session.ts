/**
 * A real Session for the state-machine tests: a real tool host (bypass mode) on a temp project, a scripted
 * provider as binding A, and the side-task hooks the test passes (usually paced by `deferred`).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Session, type ModelBinding, type SessionHooks } from "../../src/agent/session/session.ts";
import { createToolHost } from "../../src/agent/tool-host-impl.ts";
import { createPathPolicy } from "../../src/tool/workspace.ts";
import { createPermissionPolicy } from "../../src/tool/permission.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import type { ScriptedProvider } from "./scripted-provider.ts";

export interface MachineHarness {
  session: Session;
  events: AgentEvent[];
  of<T extends AgentEvent["type"]>(type: T): Array<Extract<AgentEvent, { type: T }>>;
  cleanup(): void;
}

export function bindingOf(provider: ScriptedProvider, o: { id: string; model: string; nativeTools?: boolean; contextWindow?: number }): ModelBinding {
  return { providerId: o.id, model: o.model, provider, nativeTools: o.nativeTools ?? true, contextWindow: o.contextWindow ?? 32768 };
}

export function makeSession(o: { binding: ModelBinding; hooks?: SessionHooks }): MachineHarness {
  const project = mkdtempSync(join(tmpdir(), "chatcli-machine-"));
  writeFileSync(join(project, "x.txt"), "hello");
  const tools = createToolHost({
    projectRoot: project,
    cwd: project,
    paths: createPathPolicy({ projectRoot: project, extraReadPaths: [] }),
    policy: createPermissionPolicy({ homeDir: join(project, ".home"), projectRoot: project, mode: "bypass" }),
    env: {},
  });
  let clock = 1_000;
  const session = new Session({
    sessionId: "machine",
    cwd: project,
    binding: o.binding,
    permissionMode: "bypass",
    turn: { systemPrompt: () => [{ text: "system" }], tools },
    ...(o.hooks ? { hooks: o.hooks } : {}),
    now: () => clock++,
  });
  const events: AgentEvent[] = [];
  session.subscribe((e) => events.push(e));
  return {
    session,
    events,
    of: <T extends AgentEvent["type"]>(type: T) => events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type),
    cleanup: () => rmSync(project, { recursive: true, force: true }),
  };
}
