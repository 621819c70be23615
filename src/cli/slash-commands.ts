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
import { splitCliArgs } from "../agent/toolcall/cli-args.ts";
import { formatSessionTable } from "./commands/sessions.ts";
import { t, type MessageKey } from "../i18n/i18n.ts";

/** What the handler needs from the Session (agent/session/session.ts's Session satisfies it). */
export interface SlashSession {
  readonly messages: readonly Message[];
  /** Anything but `idle` means a run or a side task (compaction, model switch, rewind) holds the session. */
  readonly status: string;
  readonly contextWindow: number;
  /** What the next request carries (the meter after a load shows this, not the figure recorded then). */
  contextTokens?(): number;
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

/** Descriptions are read in the current language each time the completion list shows them. */
const translated = (name: string, key: MessageKey) => ({
  name,
  get description() {
    return t(key);
  },
});

export const SLASH_COMMANDS: ReadonlyArray<{ name: string; description: string }> = [translated("session", "cmd.sessionArgs"), translated("context", "cmd.contextArgs")];

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


function session(d: SlashDeps, args: string): string {
  const [sub = "", ...rest] = args.split(/\s+/).filter(Boolean);
  const ref = rest.join(" ");
  const { store, recorder } = d;
  switch (sub) {
    case "":
    case "info": {
      const n = d.session.messages.filter((m) => m.role !== "system").length;
      return `${t("slash.sessionInfo", { id: recorder.id, count: n, file: recorder.hasFile ? recorder.file : t("slash.notSavedYet") })}\n${t("slash.sessionUsage")}`;
    }
    case "save": {
      if (!ref) return t("slash.saveUsage");
      if (!recorder.hasFile) return t("slash.nothingToSave");
      const err = store.saveName(ref, recorder.id);
      return err ?? t("slash.savedAs", { id: recorder.id, name: ref });
    }
    case "list": {
      const all = store.list();
      if (!all.length) return t("sessions.none");
      const table = formatSessionTable(all, d.projectRoot).replace(/\n$/, "");
      return `${table}\n${t("slash.listFooter", { id: recorder.id })}`;
    }
    case "load": {
      if (!ref) return t("slash.loadUsage");
      if (d.session.status !== "idle") return t("slash.loadBusy");
      const found = store.resolve(ref);
      if (!found) return t("slash.noMatchList", { ref });
      if (found.id === recorder.id) return t("slash.alreadyCurrent", { id: found.id });
      const loaded = store.load(found.id);
      if (!loaded) return t("slash.noMatch", { ref });
      recorder.switchTo(loaded.meta.id, { existing: true, entries: loaded });
      recorder.suspend(() => {
        d.session.replaceHistory(loaded.history, "session_load", false);
        d.session.publish({ type: "history.replaced", messages: [] });
        for (const e of transcriptEvents(loaded, { contextWindow: d.session.contextWindow, ...(d.session.contextTokens ? { contextTokens: d.session.contextTokens() } : {}) })) d.session.publish(e);
      });
      const model = loaded.lastModel.model ? t("slash.recordedWith", { model: `${loaded.lastModel.provider}:${loaded.lastModel.model}` }) : "";
      return t("slash.loaded", { id: loaded.meta.id, count: loaded.messageCount, model });
    }
    case "delete": {
      if (!ref) return t("slash.deleteUsage");
      const found = store.resolve(ref);
      if (found?.id === recorder.id) return t("slash.deleteCurrent");
      const r = store.delete(ref);
      return typeof r === "string" ? r : t("slash.deleted", { id: r.id });
    }
    case "new": {
      if (d.session.status !== "idle") return t("slash.newBusy");
      const previous = recorder.hasFile ? recorder.id : undefined;
      recorder.switchTo(store.newId(), { existing: false });
      d.session.replaceHistory([], "session_new");
      return previous ? t("slash.newKept", { previous }) : t("slash.new");
    }
    case "fork": {
      if (!recorder.hasFile) return t("slash.nothingToFork");
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
      recorder.switchTo(id, { existing: true, keepEntries: true });
      return t("slash.forked", { id, from });
    }
    default:
      return t("slash.unknownSession", { sub, usage: t("slash.sessionUsage") });
  }
}


function context(d: SlashDeps, args: string): string {
  // Shell-like words, so a path with spaces can be quoted ("docs/api notes.md") or escaped (docs/api\ notes.md).
  const [sub = "", name, ...paths] = splitCliArgs(args);
  const c = d.contexts;
  switch (sub) {
    case "create": {
      if (!name) return t("slash.contextCreateUsage");
      return c.create(name, paths).message;
    }
    case "attach": {
      if (!name) return t("slash.contextAttachUsage");
      const err = c.attach(name);
      return err ?? t("slash.contextAttached", { name });
    }
    case "detach": {
      const gone = c.detach(name);
      if (!gone.length) return name ? t("slash.contextNotAttached", { name }) : t("slash.noContextAttached");
      return t("slash.detached", { names: gone.join(", ") });
    }
    case "":
    case "list": {
      const all = c.list();
      if (!all.length) return t("slash.noContexts");
      return all.map((s) => `${s.attached ? "●" : "○"} ${s.name}: ${s.paths.join(", ")}`).join("\n");
    }
    case "delete":
      if (!name) return t("slash.contextDeleteUsage");
      return c.delete(name) ? t("slash.contextDeleted", { name }) : t("slash.noContextNamed", { name });
    default:
      return t("slash.unknownContext", { sub, usage: t("slash.contextUsage") });
  }
}
