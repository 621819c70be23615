/**
 * A SessionFactory for SessionHost tests: every `session/new` builds a real Session with wireSession (interactive,
 * so approvals are real round trips; default permission mode) over a ScriptedProvider, in its own temp project.
 */
import type { BuiltSession, SessionFactory } from "../../src/server/session-host.ts";
import { harness, type Harness } from "./agent-harness.ts";
import type { ScriptedReply } from "./scripted-provider.ts";

export interface HostFactory extends SessionFactory {
  /** The harness of each session built so far (its provider, its own event list, its project dir). */
  readonly built: Harness[];
  cleanup(): void;
}

/** `replies(n)`: the script of the n-th session created (from 0). */
export function hostFactory(replies: (n: number) => ScriptedReply[]): HostFactory {
  const built: Harness[] = [];
  return {
    built,
    create: async () => {
      const h = harness({ replies: replies(built.length), interactive: true });
      built.push(h);
      const session = h.wired.session;
      const b: BuiltSession = {
        id: h.wired.recorder?.id ?? `s${built.length}`,
        cwd: h.project,
        core: session,
        provider: () => session.model.providerId,
        model: () => session.model.model,
        dispose: async () => undefined,
      };
      return b;
    },
    resume: async () => undefined,
    resolveId: () => undefined,
    saved: () => [],
    cleanup: () => {
      for (const h of built.splice(0)) h.cleanup();
    },
  };
}
