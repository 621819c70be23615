/**
 * Entry point of the interactive TUI. Creates the renderer, runs the app, and restores the terminal on every exit
 * path: quit (/exit, Ctrl+C twice, Ctrl+D), SIGTERM/SIGHUP/SIGQUIT, and uncaught errors (which also print the error
 * and the log path and give a non-zero code). Resolves with the exit code; the caller calls process.exit with it.
 * While the TUI runs, console.* goes to `logFile`, never to the screen.
 * The caller must check `process.stdout.isTTY` first and use runPlain otherwise.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { createCliRenderer, type CliRenderer } from "@opentui/core";
import { TuiApp, type TuiAppOptions } from "./tui-app.ts";
import type { DisplayMode } from "./view-model.ts";
import { gitBranch } from "./git-branch.ts";
import { ScrollRegionMover, scrollRegionsEnabled } from "./scroll-region.ts";
import { applyTheme, noColor } from "./theme.ts";
import { detectTheme } from "./theme-detect.ts";
import { t } from "../../i18n/i18n.ts";

/** The TuiApp's options minus what runTui supplies itself (exit, log, tmux copy, the Esc+Esc window from env). */
export interface RunTuiOptions extends Omit<TuiAppOptions, "onExit" | "log" | "onCopy" | "rewindEscMs"> {
  version: string;
  logFile: string;
}

/** `CHATCLI_CODER_UI=full|compact` overrides the configured display mode. */
export function displayModeFromEnv(fallback: DisplayMode, env: Record<string, string | undefined> = process.env): DisplayMode {
  const v = env.CHATCLI_CODER_UI?.trim().toLowerCase();
  return v === "compact" || v === "full" ? v : fallback;
}

export async function runTui(opts: RunTuiOptions): Promise<number> {
  const log = makeLogger(opts.logFile);
  // After a hang-up the tty is gone: restoring it fails (EIO) and OpenTUI reports that on console.error with a
  // stack. The hang-up gets one log line; console output after it is dropped.
  let hungUp = false;
  const restoreConsole = redirectConsole((msg) => {
    if (!hungUp) log(msg);
  });
  let renderer: CliRenderer | null = null;
  let app: TuiApp | null = null;
  let settle!: (code: number) => void;
  const done = new Promise<number>((r) => (settle = r));
  let finishing = false;
  let fatal: unknown = null;

  const finish = (code: number): void => {
    if (finishing) return;
    finishing = true;
    try {
      app?.destroy();
      renderer?.destroy();
    } catch (e) {
      log(`destroy failed: ${String(e)}`);
    }
    const closed = renderer ? renderer.closed.catch(() => undefined) : Promise.resolve();
    void closed.then(() => settle(code));
  };
  const onSignal = (code: number) => () => {
    if (code === 129) {
      if (hungUp) return;
      hungUp = true;
      log("terminal hang-up (SIGHUP): exit 129");
    } else log(`signal → exit ${code}`);
    try {
      opts.session.submit({ type: "shutdown" });
    } catch {
      /* exiting anyway */
    }
    finish(code);
  };
  const onTerm = onSignal(143);
  const onHup = onSignal(129);
  const onQuit = onSignal(131);
  const onFatal = (e: unknown): void => {
    log(`fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    fatal ??= e;
    finish(1);
  };
  process.on("SIGTERM", onTerm);
  process.on("SIGHUP", onHup);
  process.on("SIGQUIT", onQuit);
  process.on("uncaughtException", onFatal);
  process.on("unhandledRejection", onFatal);

  try {
    // The palette is chosen before the first frame: an explicit setting, else the terminal's background.
    const theme = await detectTheme(opts.theme ?? "auto", process.env);
    applyTheme(theme.theme);
    log(`theme ${theme.theme} (${theme.source})${noColor() ? ", NO_COLOR: mono" : ""}`);
    renderer = await createCliRenderer({
      screenMode: opts.inline ? "split-footer" : "alternate-screen",
      footerHeight: 6,
      useMouse: !opts.inline,
      exitOnCtrlC: false,
      exitSignals: [],
      openConsoleOnError: false,
      consoleMode: "disabled",
      targetFps: 30,
      maxFps: 60,
    });
    const branch = opts.gitBranch ?? gitBranch(opts.cwd);
    app = new TuiApp(renderer, {
      ...opts,
      ...(branch ? { gitBranch: branch } : {}),
      ...(process.env.TMUX && !opts.inline ? { onCopy: tmuxClipboard } : {}),
      onExit: (code) => finish(code),
      log,
    });
    const transcript = app.transcript;
    if (transcript && scrollRegionsEnabled()) new ScrollRegionMover(renderer, () => transcript.regionRect()).install();
    log(`tui started v${opts.version} (${opts.inline ? "inline" : "full-screen"})`);
    testCrashHook(process.env.CHATCLI_TEST_CRASH_AFTER_MS);
  } catch (e) {
    onFatal(e);
  }

  const code = await done;
  process.off("SIGTERM", onTerm);
  process.off("SIGHUP", onHup);
  process.off("SIGQUIT", onQuit);
  process.off("uncaughtException", onFatal);
  process.off("unhandledRejection", onFatal);
  restoreConsole();
  if (fatal !== null) {
    const msg = fatal instanceof Error ? fatal.message : String(fatal);
    process.stderr.write(`${t("tui.fatal", { message: msg, log: opts.logFile })}\n`);
  }
  return code;
}

/**
 * Inside tmux OpenTUI wraps OSC 52 in a DCS passthrough, which tmux drops unless `allow-passthrough` is on. The
 * plain sequence as well lets tmux itself take it (`set-clipboard on`: a tmux buffer, forwarded to the outer
 * terminal). Full-screen only: in inline mode stdout is captured into the scrollback (and the mouse is off).
 */
function tmuxClipboard(text: string): void {
  process.stdout.write(`\x1b]52;c;${Buffer.from(text, "utf8").toString("base64")}\x07`);
}

function makeLogger(file: string): (msg: string) => void {
  try {
    mkdirSync(dirname(file), { recursive: true });
  } catch {
    /* logging is best effort */
  }
  return (msg) => {
    try {
      appendFileSync(file, `${new Date().toISOString()} ${msg}\n`);
    } catch {
      /* never let logging break the UI */
    }
  };
}

type ConsoleMethod = "log" | "info" | "warn" | "error" | "debug" | "trace";

/** Sends console.* to the log while the TUI owns the screen; returns the restore function. */
function redirectConsole(log: (msg: string) => void): () => void {
  const methods: ConsoleMethod[] = ["log", "info", "warn", "error", "debug", "trace"];
  const saved = methods.map((m) => [m, console[m]] as const);
  for (const m of methods) {
    console[m] = (...args: unknown[]) => log(`console.${m}: ${args.map(formatArg).join(" ")}`);
  }
  return () => {
    for (const [m, f] of saved) console[m] = f;
  };
}

/**
 * TEST ONLY (test/smoke/tui-hygiene.smoke.ts): `CHATCLI_TEST_CRASH_AFTER_MS=N` writes a console.log and a
 * console.error marker right away (they must land in the log, never on the screen) and throws an uncaught
 * error from a timer N ms later (the terminal must be restored, the error and the log path printed, exit 1).
 * Not a user setting; unset, it does nothing.
 */
function testCrashHook(value: string | undefined): void {
  const ms = Number(value);
  if (!value || !Number.isFinite(ms) || ms < 0) return;
  console.log("CHATCLI-TEST-CONSOLE-LOG");
  console.error("CHATCLI-TEST-CONSOLE-ERROR");
  setTimeout(() => {
    throw new Error("test crash (CHATCLI_TEST_CRASH_AFTER_MS)");
  }, ms);
}

function formatArg(a: unknown): string {
  if (typeof a === "string") return a;
  if (a instanceof Error) return a.stack ?? a.message;
  try {
    return JSON.stringify(a);
  } catch {
    return String(a);
  }
}
