/**
 * A real wired Session (agent-harness.ts) with hooks in its user (or project) settings, built from HookScripts.
 * `interactive: true` is the session the TUI drives: approvals are asked and a stand-in person answers them
 * (`answer`, default "once"); otherwise it is the headless session (`-p`): asks are denied, untrusted project hooks
 * skipped. `start()` announces the session (SessionStart, trust, plugins) and waits for it.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ApprovalDecision, PermissionMode } from "../../src/protocol/events.ts";
import type { Message } from "../../src/protocol/message.ts";
import { harness, type Harness } from "./agent-harness.ts";
import { HookScripts, writeProjectSettings, writeUserSettings } from "./hook-scripts.ts";
import type { ScriptedReply } from "./scripted-provider.ts";

export interface HookedSession extends Harness {
  scripts: HookScripts;
  start(): Promise<void>;
  end(): Promise<void>;
  /** The text of every message of the n-th model request. */
  requestText(n: number): string;
}

export function hookedSession(o: {
  hooks: (s: HookScripts) => Record<string, unknown>;
  replies: ScriptedReply[];
  interactive?: boolean;
  mode?: PermissionMode;
  /** The stand-in person's answer; `null`: nobody answers (a real UI on the session does). */
  answer?: ApprovalDecision | null;
  project?: boolean;
  env?: Record<string, string>;
  before?: (root: string) => void;
}): HookedSession {
  const root = mkdtempSync(join(tmpdir(), "chatcli-hooked-"));
  const scripts = new HookScripts(join(root, "hookdir"));
  const block = o.hooks(scripts);
  if (o.project) writeProjectSettings(root, { hooks: block });
  else writeUserSettings(root, { hooks: block });
  o.before?.(root);
  const h = harness({ root, replies: o.replies, interactive: o.interactive ?? false, mode: o.mode ?? "default", ...(o.env ? { env: o.env } : {}) });
  if (o.interactive && o.answer !== null) {
    h.wired.session.subscribe((e) => {
      if (e.type === "approval.requested") queueMicrotask(() => h.wired.session.submit({ type: "approval", requestId: e.requestId, decision: o.answer ?? "once" }));
    });
  }
  return {
    ...h,
    scripts,
    start: async () => {
      h.wired.session.start();
      await h.wired.ext?.runtime.ready();
    },
    end: async () => {
      await h.wired.ext?.runtime.end("other");
    },
    requestText: (n) => (h.provider.requests[n]?.messages ?? []).map((m: Message) => m.content).join("\n"),
  };
}
