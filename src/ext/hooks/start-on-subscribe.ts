/**
 * The TUI never announces session.started: its session starts hooks and plugins when the UI first subscribes
 * (so the UI is listening when the trust question is asked). Used by main.ts for the TUI only.
 */
import type { SessionLike } from "../../protocol/session-like.ts";
import type { Extensions } from "./wire-extensions.ts";

export function startingExtensionsOnSubscribe(session: SessionLike, ext: Extensions | undefined, source: "startup" | "resume"): SessionLike {
  if (!ext) return session;
  return {
    submit: (op) => session.submit(op),
    subscribe: (listener) => {
      const off = session.subscribe(listener);
      void ext.runtime.start(source);
      return off;
    },
  };
}
