// A SessionFactory over real Sessions driven by the scripted provider (model "m1", cwd "/p"), for the server tests.
// Each session's harness is pushed to `harnesses` so the test can clean it up.
import type { BuiltSession, SessionFactory } from "../../src/server/session-host.ts";
import { bindingOf, makeSession, type MachineHarness } from "./machine-session.ts";
import type { ScriptedProvider } from "./scripted-provider.ts";

export function scriptedSessionFactory(provider: ScriptedProvider, harnesses: MachineHarness[]): SessionFactory {
  let n = 0;
  return {
    create: async () => {
      const h = makeSession({ binding: bindingOf(provider, { id: "SCRIPTED", model: "m1" }) });
      harnesses.push(h);
      const built: BuiltSession = { id: `s${++n}`, cwd: "/p", core: h.session, provider: () => "SCRIPTED", model: () => "m1", dispose: async () => undefined };
      return built;
    },
    resume: async () => undefined,
    resolveId: () => undefined,
    saved: () => [],
  };
}
