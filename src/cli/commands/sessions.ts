/** `chatcli sessions` (list saved sessions) and `chatcli sessions import FILE` (a ChatCLI v2 session JSON). */
import { resolve } from "node:path";
import type { Config } from "../../config/load-config.ts";
import { SessionStore, type SessionSummary } from "../../store/session-store.ts";
import { loadSession, type LoadedSession } from "../../store/session-file.ts";
import { CliFailure } from "../resolve-model.ts";
import { t } from "../../i18n/i18n.ts";

export interface Out {
  write(s: string): unknown;
}

export function sessionsCommand(cfg: Config, action: "list" | "import", file: string | undefined, out: Out, err: Out): number {
  const store = new SessionStore({ home: cfg.home, env: cfg.env });
  if (action === "import") {
    const r = store.importChatcli(resolve(cfg.cwd, file ?? ""), { cwd: cfg.cwd, projectRoot: cfg.projectRoot });
    if (typeof r === "string") {
      err.write(`chatcli: ${r}\n`);
      return 1;
    }
    out.write(`${t("sessions.imported", { count: r.messages, id: r.id, skipped: r.skipped ? t("sessions.skipped", { count: r.skipped }) : "" })}\n`);
    return 0;
  }
  const all = store.list();
  if (!all.length) {
    out.write(`${t("sessions.none")}\n`);
    return 0;
  }
  out.write(formatSessionTable(all, cfg.projectRoot));
  return 0;
}

/** One line per session: id, date, messages, model, title; `*` marks sessions of the current project. */
export function formatSessionTable(all: SessionSummary[], projectRoot?: string): string {
  const rows = all.map((s) => [
    `${s.projectRoot === projectRoot ? "*" : " "} ${s.id}${s.names.length ? ` (${s.names.join(", ")})` : ""}`,
    formatDate(s.updatedAt),
    `${s.messages} msg`,
    s.model ? (s.provider ? `${s.provider}:${s.model}` : s.model) : "-",
    s.title || t("sessions.untitled"),
  ]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  return `${rows.map((r) => r.map((c, i) => (i < 4 ? c.padEnd(widths[i]!) : c)).join("  ")).join("\n")}\n`;
}

export function formatDate(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/**
 * `--resume [id|name]` / `--continue`: the saved session to start from, or undefined for a new one.
 * A bare `--resume` (empty value) means the newest session of this project, then the newest of all.
 * Throws CliFailure (exit 1) when nothing matches.
 */
export function resolveResume(cfg: Config, cmd: { resume?: string; continue: boolean }): LoadedSession | undefined {
  if (cmd.resume === undefined && !cmd.continue) return undefined;
  const store = new SessionStore({ home: cfg.home, env: cfg.env });
  let found: SessionSummary | undefined;
  if (cmd.resume) {
    found = store.resolve(cmd.resume);
    if (!found) throw new CliFailure(t("sessions.noMatch", { ref: cmd.resume }), 1);
  } else {
    found = store.latestForProject(cfg.projectRoot) ?? (cmd.resume === "" ? store.list()[0] : undefined);
    if (!found) throw new CliFailure(t("sessions.nothingToContinue", { dir: cfg.projectRoot }), 1);
  }
  return loadSession(found.file);
}
