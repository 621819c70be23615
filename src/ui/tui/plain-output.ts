/**
 * The non-TTY / --no-tui consumer: plain streaming text, no escape codes. Each input line is a prompt
 * (`/exit` quits); approval requests are answered from the next input line (y, a, n, N; anything else denies).
 * Resolves when input ends and no turn is running, or on session.ended.
 * Interactive (stdin is a terminal, or `interactive` says so): a `> ` marker whenever it waits for a prompt, and
 * `allow [y/a/n/N]> ` when it waits for an approval answer. Piped input gets no markers (the output stays the
 * answers), but the approval question always says what to type.
 */
import { createInterface } from "node:readline";
import type { AgentEvent, ApprovalDecision } from "../../protocol/events.ts";
import type { SessionLike } from "../../protocol/session-like.ts";
import { DisplayFilter } from "../shared/display-filter.ts";
import { t } from "../../i18n/i18n.ts";
import { toolErrorLine, toolResultForPeople } from "../shared/tool-error-line.ts";
import { outsideProjectLine } from "../shared/outside-project-line.ts";
import { compactionLine } from "../shared/compaction-line.ts";

export interface PlainOutput {
  write(s: string): unknown;
}

/** Shown when the plain UI waits for a prompt line (a symbol, not text: the same in every language). */
export const PLAIN_PROMPT_MARKER = "> ";
/** The marker in shell mode (`!` alone toggles it): lines are run as commands. */
export const PLAIN_SHELL_MARKER = "!> ";

export interface PlainOptions {
  /** Show input markers; default: the input is a terminal. */
  interactive?: boolean;
  /** `/name args` lines other than /exit, /quit, /clear and /compact; the returned text is printed. */
  onSlashCommand?: (name: string, args: string) => Promise<string | undefined> | string | undefined;
}

export async function runPlain(session: SessionLike, input: NodeJS.ReadableStream, output: PlainOutput, opts: PlainOptions = {}): Promise<number> {
  const interactive = opts.interactive ?? (input as { isTTY?: boolean }).isTTY === true;
  let running = false;
  let inputEnded = false;
  let pendingApproval: string | null = null;
  /** The pending approval offers no "always" (`a` then denies, like any other answer it does not offer). */
  let pendingNoAlways = false;
  // Lines typed while a turn runs wait in the session's queue; input ending must not drop them.
  let queued = 0;
  // Lines read while a turn runs wait here and are submitted one per turn, so a piped script of any length is
  // answered line by line (the session's type-ahead queue holds 10 and joins what it holds into one prompt).
  const waiting: string[] = [];
  let atLineStart = true;
  // Issue 25: `!` alone toggles shell mode (lines run as commands); the output of a `!` command is printed.
  let shellMode = false;
  let shellTurn = false;
  let turnsStarted = 0;
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));
  const write = (s: string) => {
    if (!s) return;
    output.write(s);
    atLineStart = s.endsWith("\n");
  };
  const line = (s: string) => write((atLineStart ? "" : "\n") + s + "\n");
  // A marker is on screen and the cursor waits after it; the Enter that ends the typed line moves it down.
  let markerShown = false;
  const marker = (text: string) => {
    if (!interactive || inputEnded) return;
    write((atLineStart ? "" : "\n") + text);
    markerShown = true;
  };
  /** The prompt marker, when nothing else is pending: no turn, no approval, nothing read ahead or queued. */
  const promptIfIdle = () => {
    if (!running && !pendingApproval && queued === 0 && waiting.length === 0) marker(shellMode ? PLAIN_SHELL_MARKER : PLAIN_PROMPT_MARKER);
  };
  const maybeDone = () => {
    if (inputEnded && !running && !pendingApproval && queued === 0 && waiting.length === 0) resolveDone(0);
  };

  const display = new DisplayFilter();
  const unsubscribe = session.subscribe((raw: AgentEvent) => {
    for (const e of display.apply(raw)) onEvent(e);
  });
  function onEvent(e: AgentEvent): void {
    // A subagent's tool calls (issue 20) are not the session's own lines.
    if ((e.type === "tool.started" || e.type === "tool.completed") && e.agentId) return;
    switch (e.type) {
      case "turn.started":
        running = true;
        turnsStarted++;
        shellTurn = e.input.startsWith("!");
        break;
      case "tool.updated":
        if (shellTurn) write(e.output);
        break;
      case "queue.updated":
        queued = e.items.length;
        if (queued === 0 && !running && waiting.length) setTimeout(submitNext, 0);
        break;
      case "message.delta":
        if (e.text) write(e.text);
        break;
      case "tool.started":
        line(`→ ${e.title.startsWith(`${e.name} `) ? e.title : `${e.name} ${e.title}`}`);
        break;
      case "tool.completed":
        if (e.isError) line(`✗ ${toolErrorLine(e) ?? `${e.name}: ${firstLine(toolResultForPeople(e))}`}`);
        break;
      case "tool_use_summary":
        line(`● ${e.label}`);
        break;
      case "approval.requested":
        pendingApproval = e.requestId;
        pendingNoAlways = e.noAlways === true;
        line(`? ${e.tool}: ${e.action}${e.outsideProject?.length ? `\n  ${outsideProjectLine(e.outsideProject)}` : ""}${e.diff ? "\n" + e.diff : ""}\n${t(e.noAlways ? "plain.allowNoAlways" : "plain.allow")}`);
        marker(t(e.noAlways ? "plain.allowPromptNoAlways" : "plain.allowPrompt"));
        break;
      case "notice":
        line(`${e.level === "info" ? "·" : "!"} ${e.text.split("\n").join("\n  ")}`);
        break;
      case "compaction":
        line(`· ${compactionLine(e)}`);
        break;
      case "error":
        line(t("plain.error", { message: e.message }));
        break;
      case "retry":
        line(t("plain.retry", { attempt: e.attempt, seconds: (e.delayMs / 1000).toFixed(1), message: e.error.message }));
        break;
      case "turn.completed":
        running = false;
        shellTurn = false;
        if (!atLineStart) write("\n");
        // After the session has finished this run (its loop ends on a later tick), not from inside its emit.
        if (waiting.length && queued === 0) setTimeout(submitNext, 0);
        else {
          maybeDone();
          promptIfIdle();
        }
        break;
      case "session.ended":
        resolveDone(0);
        break;
      default:
        break;
    }
  }

  const rl = createInterface({ input, terminal: false });
  rl.on("line", (text) => {
    if (markerShown) {
      markerShown = false;
      atLineStart = true;
    }
    if (pendingApproval) {
      const id = pendingApproval;
      pendingApproval = null;
      const decision = decisionFromLine(text);
      session.submit({ type: "approval", requestId: id, decision: pendingNoAlways && decision === "always" ? "deny" : decision });
      maybeDone();
      return;
    }
    if (!text.trim()) return promptIfIdle();
    if (running || waiting.length) waiting.push(text);
    else prompt(text);
  });
  function prompt(text: string): void {
    const trimmed = text.trim();
    if (trimmed === "/exit" || trimmed === "/quit") {
      resolveDone(0);
      return;
    }
    // The same rule as the TUI: a line that starts with "/" is a command, never a prompt for the model.
    const m = /^\/(\S+)\s*([\s\S]*)$/.exec(trimmed);
    if (m) {
      void slashCommand(m[1]!, m[2]!.trim()).then(() =>
        setTimeout(() => {
          if (waiting.length) return submitNext();
          maybeDone();
          promptIfIdle();
        }, 0),
      );
      return;
    }
    if (trimmed === "!") {
      shellMode = !shellMode;
      line(`· ${t(shellMode ? "shell.modeOn" : "shell.modeOff")}`);
      return promptIfIdle();
    }
    if (trimmed.startsWith("!") || shellMode) {
      const before = turnsStarted;
      running = true;
      session.submit({ type: "shell", command: trimmed.startsWith("!") ? trimmed.slice(1) : trimmed });
      // Refused (busy, empty): a notice and no turn; the next line may come.
      if (turnsStarted === before) {
        running = false;
        maybeDone();
        promptIfIdle();
      }
      return;
    }
    running = true;
    session.submit({ type: "user_input", text });
  }
  async function slashCommand(name: string, args: string): Promise<void> {
    running = true;
    try {
      if (name === "clear") session.submit({ type: "clear" });
      else if (name === "compact") session.submit(args ? { type: "compact", instruction: args } : { type: "compact" });
      else if (!opts.onSlashCommand) line(t("tui.unknownCommand", { name }));
      else {
        const out = await opts.onSlashCommand(name, args);
        if (out) line(out);
      }
    } catch (e) {
      line(t("tui.commandFailed", { name, error: String(e) }));
    } finally {
      running = false;
    }
  }
  function submitNext(): void {
    const next = waiting.shift();
    if (next === undefined || running) return maybeDone();
    prompt(next);
  }
  rl.on("close", () => {
    inputEnded = true;
    if (markerShown) write("\n"); // Ctrl+D at a marker: the shell prompt starts on a line of its own
    markerShown = false;
    maybeDone();
  });
  marker(PLAIN_PROMPT_MARKER);

  const code = await done;
  unsubscribe();
  rl.close();
  session.submit({ type: "shutdown" });
  return code;
}

function decisionFromLine(s: string): ApprovalDecision {
  const t = s.trim();
  if (t === "y" || t === "yes") return "once";
  if (t === "a" || t === "always") return "always";
  if (t === "N" || t === "never") return "deny_always";
  return "deny";
}

/** indexOf, not split: a result can be megabytes of output. */
function firstLine(s: string): string {
  const nl = s.indexOf("\n");
  return nl < 0 ? s : s.slice(0, nl);
}
