/**
 * `/session …` and `/context …` for the TUI (it calls `onSlashCommand(cmd, args)` for commands it does not
 * handle itself and shows the returned text as a notice). `handle` returns undefined for commands that are
 * not ours, so main.ts can chain other handlers.
 *
 * Swapping sessions (`load`, `new`) replaces the Session's history and points the recorder at the other file;
 * the transcript is redrawn by publishing the loaded session's recorded events (recorder suspended meanwhile).
 */
import type { AgentEvent } from "../protocol/events.ts";
import type { Message } from "../protocol/message.ts";
import type { ContextManager } from "../agent/contexts.ts";
import type { SessionRecorder } from "../store/session-recorder.ts";
import type { SessionStore } from "../store/session-store.ts";
import { transcriptEvents } from "../store/session-replay.ts";
import { formatSessionTable } from "./commands/sessions.ts";

/** What the handler needs from the Session (agent/session.ts's Session satisfies it). */
export interface SlashSession {
  readonly messages: readonly Message[];
  readonly isRunning: boolean;
  readonly contextWindow: number;
  replaceHistory(messages: Message[], reason: string, announce?: boolean): void;
  publish(e: AgentEvent): void;
}

export interface SlashDeps {
  session: SlashSession;
  store: SessionStore;
  recorder: SessionRecorder;
  contexts: ContextManager;
  projectRoot: string;
}

export const SLASH_COMMANDS = [
  { name: "session", description: "save <name> · list · load <id|name> · delete <id|name> · new · fork" },
  { name: "context", description: "create <name> <paths…> · attach <name> · detach [name] · list" },
] as const;

export interface SlashHandler {
  commands: ReadonlyArray<{ name: string; description: string }>;
  /** The text to show, or undefined when the command is not one of ours. */
  handle(cmd: string, args: string): Promise<string> | undefined;
}

export function createSlashCommands(d: SlashDeps): SlashHandler {
  return {
    commands: SLASH_COMMANDS,
    handle(cmd, args) {
      if (cmd === "session") return Promise.resolve(session(d, args));
      if (cmd === "context") return Promise.resolve(context(d, args));
      return undefined;
    },
  };
}

const SESSION_USAGE = "Usage: /session save <name> | list | load <id|name> | delete <id|name> | new | fork";

function session(d: SlashDeps, args: string): string {
  const [sub = "", ...rest] = args.split(/\s+/).filter(Boolean);
  const ref = rest.join(" ");
  const { store, recorder } = d;
  switch (sub) {
    case "":
    case "info": {
      const n = d.session.messages.filter((m) => m.role !== "system").length;
      return `Session ${recorder.id} · ${n} message(s) · ${recorder.hasFile ? recorder.file : "not saved yet (autosaves after the first message)"}\n${SESSION_USAGE}`;
    }
    case "save": {
      if (!ref) return "Usage: /session save <name>";
      if (!recorder.hasFile) return "Nothing to save yet: the session is saved automatically once it has a message.";
      const err = store.saveName(ref, recorder.id);
      return err ?? `Session ${recorder.id} saved as "${ref}". Resume it with: chatcli --resume ${ref}`;
    }
    case "list": {
      const all = store.list();
      if (!all.length) return "No saved sessions.";
      const table = formatSessionTable(all, d.projectRoot).replace(/\n$/, "");
      return `${table}\n(* = this project; current: ${recorder.id})`;
    }
    case "load": {
      if (!ref) return "Usage: /session load <id|name>";
      if (d.session.isRunning) return "Cannot load a session while a turn is running; press Esc first.";
      const found = store.resolve(ref);
      if (!found) return `No session matches "${ref}". See /session list.`;
      if (found.id === recorder.id) return `Session ${found.id} is already the current one.`;
      const loaded = store.load(found.id);
      if (!loaded) return `No session matches "${ref}".`;
      recorder.switchTo(loaded.meta.id, { existing: true });
      recorder.suspend(() => {
        d.session.replaceHistory(loaded.history, "session_load", false);
        d.session.publish({ type: "history.replaced", messages: [] });
        for (const e of transcriptEvents(loaded, { contextWindow: d.session.contextWindow })) d.session.publish(e);
      });
      const model = loaded.lastModel.model ? ` (it was recorded with ${loaded.lastModel.provider}:${loaded.lastModel.model}; the current model stays)` : "";
      return `Loaded session ${loaded.meta.id}: ${loaded.messageCount} message(s)${model}.`;
    }
    case "delete": {
      if (!ref) return "Usage: /session delete <id|name>";
      const found = store.resolve(ref);
      if (found?.id === recorder.id) return "This is the current session; start another with /session new before deleting it.";
      const r = store.delete(ref);
      return typeof r === "string" ? r : `Deleted session ${r.id}.`;
    }
    case "new": {
      if (d.session.isRunning) return "Cannot start a new session while a turn is running; press Esc first.";
      const previous = recorder.hasFile ? recorder.id : undefined;
      recorder.switchTo(store.newId(), { existing: false });
      d.session.replaceHistory([], "session_new");
      return previous ? `New session started; ${previous} stays saved (chatcli --resume ${previous}).` : "New session started.";
    }
    case "fork": {
      if (!recorder.hasFile) return "Nothing to fork yet: the session has no messages.";
      const from = recorder.id;
      recorder.close();
      const loaded = store.load(from);
      const id = store.fork(from, {
        title: loaded?.meta.title ?? "",
        cwd: loaded?.meta.cwd ?? "",
        projectRoot: loaded?.meta.projectRoot ?? d.projectRoot,
        provider: loaded?.lastModel.provider ?? "",
        model: loaded?.lastModel.model ?? "",
      });
      recorder.switchTo(id, { existing: true });
      return `Forked: now in session ${id}; ${from} stays as it was.`;
    }
    default:
      return `Unknown /session subcommand "${sub}". ${SESSION_USAGE}`;
  }
}

const CONTEXT_USAGE = "Usage: /context create <name> <paths…> | attach <name> | detach [name] | list | delete <name>";

function context(d: SlashDeps, args: string): string {
  const [sub = "", name, ...paths] = args.split(/\s+/).filter(Boolean);
  const c = d.contexts;
  switch (sub) {
    case "create": {
      if (!name) return "Usage: /context create <name> <paths…>";
      return c.create(name, paths).message;
    }
    case "attach": {
      if (!name) return "Usage: /context attach <name>";
      const err = c.attach(name);
      return err ?? `Context "${name}" attached; it is sent with every request (detach with /context detach ${name}).`;
    }
    case "detach": {
      const gone = c.detach(name);
      if (!gone.length) return name ? `Context "${name}" is not attached.` : "No context is attached.";
      return `Detached: ${gone.join(", ")}.`;
    }
    case "":
    case "list": {
      const all = c.list();
      if (!all.length) return "No contexts yet. Create one with /context create <name> <paths…>.";
      return all.map((s) => `${s.attached ? "●" : "○"} ${s.name}: ${s.paths.join(", ")}`).join("\n");
    }
    case "delete":
      if (!name) return "Usage: /context delete <name>";
      return c.delete(name) ? `Context "${name}" deleted.` : `No context named "${name}".`;
    default:
      return `Unknown /context subcommand "${sub}". ${CONTEXT_USAGE}`;
  }
}
