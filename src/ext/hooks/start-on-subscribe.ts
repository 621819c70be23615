/**
 * The TUI never announces session.started: its session starts hooks and plugins when the UI first subscribes
 * (so the UI is listening when the trust question is asked), a little after its first frame (plugins are
 * transpiled and imported then; a prompt sent sooner waits for them). Used by main.ts for the TUI only.
 */

/** Like the sandbox probe (main.ts TUI_PROBE_DELAY_MS): after the first frame on a slow machine. */
const AFTER_FIRST_FRAME_MS = 400;
import type { SessionLike } from "../../protocol/session-like.ts";
import type { Extensions } from "./wire-extensions.ts";

export function startingExtensionsOnSubscribe(session: SessionLike, ext: Extensions | undefined, source: "startup" | "resume", delayMs = AFTER_FIRST_FRAME_MS): SessionLike {
  if (!ext) return session;
  return {
    submit: (op) => session.submit(op),
    subscribe: (listener) => {
      const off = session.subscribe(listener);
      void ext.runtime.start(source, delayMs);
      return off;
    },
  };
}
