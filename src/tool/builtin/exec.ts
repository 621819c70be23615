/**
 * exec: run a shell command (`bash -c`, else `sh -c`; on Windows bash when installed, else `cmd.exe /c`).
 * The child leads its own process group, so a timeout or an abort kills everything it started (SIGTERM to the
 * group, SIGKILL shortly after). stdout and stderr are streamed to ctx.onUpdate in arrival order and returned
 * combined, followed by `exit code N`. A command that exits but leaves a background child holding the pipes open
 * does not hang the tool: output is drained briefly after the exit, then the pipes are dropped.
 * With `ctx.sandbox` the command runs contained (src/sandbox/): network closed unless the sandbox opens it or the
 * call asks for it (`network: true`, which the policy asks about); a failure that looks caused by the sandbox is
 * said so in the text, and `details.sandboxFailure` lets the tool host offer a re-run outside it.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { safeHead } from "../../util/text.ts";
import { gitHardeningFor } from "../permission/git-exec-env.ts";
import { detectSandboxFailure, sandboxFailureNote } from "../../sandbox/failure.ts";
import type { WrappedCommand } from "../../sandbox/types.ts";
import { defineTool, errorOutput, type ToolContext, type ToolOutput } from "../tool.ts";
import { argvToCommandLine } from "./argv-command.ts";

export const EXEC_DEFAULT_TIMEOUT_MS = 120_000;
export const EXEC_MAX_TIMEOUT_MS = 600_000;
const KILL_GRACE_MS = 300;
const DRAIN_AFTER_EXIT_MS = 250;
/**
 * What an exec keeps in memory of its output (issue 26: 8M + 8M chars put a 50 MB output near 240 MB of RSS).
 * The model sees a ~30k preview of it and the overflow file gets this, so 4M chars is plenty to page through.
 */
const KEEP_HEAD_CHARS = 2_000_000;
const KEEP_TAIL_CHARS = 2_000_000;

const input = z.object({
  command: z.string().min(1).describe("Shell command line, run with bash -c."),
  cwd: z.string().optional().describe("Working directory (relative to the session's cwd); default the session's cwd."),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(EXEC_MAX_TIMEOUT_MS)
    .optional()
    .describe(`Timeout in milliseconds (default ${EXEC_DEFAULT_TIMEOUT_MS}, at most ${EXEC_MAX_TIMEOUT_MS}).`),
  network: z
    .boolean()
    .optional()
    .describe("Set true only when this command needs network access (commands run sandboxed without network; the user is asked)."),
});

/** Keeps all output up to a memory bound; beyond it the middle is dropped (the head and the latest tail stay). */
class OutputCollector {
  private head: string[] = [];
  private headLen = 0;
  private tail: string[] = [];
  private tailLen = 0;
  private dropped = 0;

  push(s: string): void {
    if (this.headLen < KEEP_HEAD_CHARS) {
      this.head.push(s);
      this.headLen += s.length;
      return;
    }
    this.tail.push(s);
    this.tailLen += s.length;
    while (this.tailLen > KEEP_TAIL_CHARS && this.tail.length > 1) {
      const x = this.tail.shift() as string;
      this.tailLen -= x.length;
      this.dropped += x.length;
    }
  }

  text(): string {
    const gap = this.dropped ? `\n[... ${this.dropped} chars of output were not kept in memory ...]\n` : "";
    return this.head.join("") + gap + this.tail.join("");
  }
}

function shellFor(env: Record<string, string>): string[] {
  const PATH = env.PATH ?? env.Path ?? process.env.PATH ?? "";
  const bash = Bun.which("bash", { PATH });
  if (bash) return [bash, "-c"];
  if (process.platform === "win32") return [env.COMSPEC ?? "cmd.exe", "/d", "/s", "/c"];
  return [Bun.which("sh", { PATH }) ?? "/bin/sh", "-c"];
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    if (process.platform === "win32") process.kill(pid, signal);
    else process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

async function pump(stream: ReadableStream<Uint8Array>, onText: (s: string) => void, stop: Promise<void>): Promise<void> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const stopped = stop.then(() => "stop" as const);
  try {
    for (;;) {
      const r = await Promise.race([reader.read(), stopped]);
      if (r === "stop") {
        await reader.cancel().catch(() => undefined);
        break;
      }
      if (r.done) break;
      const s = decoder.decode(r.value, { stream: true });
      if (s) onText(s);
    }
  } catch {
    // a broken pipe ends the stream
  }
  const rest = decoder.decode();
  if (rest) onText(rest);
}

export const execTool = defineTool({
  name: "exec",
  description:
    "Run a shell command (bash) in the project and return its combined stdout+stderr and exit code. " +
    `Default timeout ${EXEC_DEFAULT_TIMEOUT_MS / 1000} s (timeout_ms up to ${EXEC_MAX_TIMEOUT_MS / 1000} s). ` +
    "stdin is closed; do not start interactive programs. Prefer read/search/tree for looking at files.",
  input,
  readOnly: false,
  headShare: 0.3,
  argAliases: { cmd: "command", argv: "command", dir: "cwd", workdir: "cwd", timeout: "timeout_ms" },
  normalizeArgs: (a) => (Array.isArray(a["command"]) ? { ...a, command: argvToCommandLine(a["command"]) } : a),
  title: (args) => {
    const oneLine = args.command.replace(/\s+/g, " ").trim();
    return `exec ${oneLine.length > 80 ? `${safeHead(oneLine, 79)}…` : oneLine}`;
  },
  async execute(args, ctx): Promise<ToolOutput> {
    const cwd = ctx.paths.resolveRead(args.cwd ? path.resolve(ctx.cwd, args.cwd) : ctx.cwd);
    try {
      if (!(await stat(cwd)).isDirectory()) return errorOutput(`cwd ${cwd} is not a directory.`, "ENOTDIR");
    } catch {
      return errorOutput(`cwd ${cwd} does not exist.`, "ENOENT");
    }
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(ctx.env)) if (v !== undefined) env[k] = v;
    // Auto-allowed git calls are read-only only when run hardened (issue 14).
    Object.assign(env, gitHardeningFor(args.command, env));
    const timeoutMs = args.timeout_ms ?? EXEC_DEFAULT_TIMEOUT_MS;
    const started = Date.now();

    const sandbox = ctx.sandbox;
    const network = sandbox ? args.network === true || sandbox.network : true;
    const argv = [...shellFor(env), args.command];
    let wrapped: WrappedCommand | undefined;
    try {
      wrapped = sandbox?.wrap({ argv, cwd, env, network });
    } catch (e) {
      return errorOutput(`The sandbox could not be set up for this command (${e instanceof Error ? e.message : String(e)}).`, "sandbox_error");
    }
    try {
      return await runCommand(wrapped?.argv ?? argv, wrapped?.env ?? env, cwd, args, ctx, timeoutMs, started, sandbox ? { sandbox, network } : undefined);
    } finally {
      wrapped?.cleanup();
    }
  },
});

async function runCommand(
  argv: string[],
  env: Record<string, string>,
  cwd: string,
  args: { command: string },
  ctx: ToolContext,
  timeoutMs: number,
  started: number,
  contained: { sandbox: NonNullable<ToolContext["sandbox"]>; network: boolean } | undefined,
): Promise<ToolOutput> {
  const proc = Bun.spawn(argv, {
    cwd,
    env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    detached: process.platform !== "win32",
  });
  const out = new OutputCollector();
  const onText = (s: string) => {
    out.push(s);
    try {
      ctx.onUpdate?.(s);
    } catch {
      // a UI listener failing must not break the command
    }
  };

  let ended: "timeout" | "canceled" | undefined;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const terminate = (why: "timeout" | "canceled") => {
    if (ended) return;
    ended = why;
    killGroup(proc.pid, "SIGTERM");
    killTimer = setTimeout(() => killGroup(proc.pid, "SIGKILL"), KILL_GRACE_MS);
  };
  const timer = setTimeout(() => terminate("timeout"), timeoutMs);
  const onAbort = () => terminate("canceled");
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener("abort", onAbort, { once: true });

  let release: () => void = () => undefined;
  const stopPipes = new Promise<void>((resolve) => {
    release = resolve;
  });
  const pumps = Promise.all([pump(proc.stdout, onText, stopPipes), pump(proc.stderr, onText, stopPipes)]);
  const exitCode = await proc.exited;
  clearTimeout(timer);
  ctx.signal.removeEventListener("abort", onAbort);
  const drain = setTimeout(release, ended ? 0 : DRAIN_AFTER_EXIT_MS);
  await pumps;
  clearTimeout(drain);
  if (ended) {
    // The leader is gone; make sure the rest of its group is too before reporting.
    if (killTimer) clearTimeout(killTimer);
    killGroup(proc.pid, "SIGKILL");
  }

  const output = out.text();
  const sep = output && !output.endsWith("\n") ? "\n" : "";
  const details = { command: args.command, cwd, exitCode, signal: proc.signalCode ?? undefined, durationMs: Date.now() - started };
  if (ended === "timeout") {
    return errorOutput(`${output}${sep}[timed out after ${timeoutMs} ms; the command and its children were killed]`, "Timeout", {
      ...details,
      timedOut: true,
    });
  }
  if (ended === "canceled") {
    return errorOutput(`${output}${sep}[canceled by the user; the command and its children were killed]`, "Canceled", {
      ...details,
      canceled: true,
    });
  }
  const text = `${output || "(no output)\n"}${output ? sep : ""}exit code ${exitCode}`;
  const full = contained ? { ...details, sandboxed: contained.sandbox.kind, network: contained.network } : details;
  if (exitCode === 0) return { text, details: full };
  const failure = contained ? detectSandboxFailure(output, { network: contained.network }) : undefined;
  if (!contained || !failure) return errorOutput(text, `ExitCode:${exitCode}`, full);
  return errorOutput(`${text}\n${sandboxFailureNote(failure, contained.sandbox, contained.network)}`, `ExitCode:${exitCode}`, { ...full, sandboxFailure: failure });
}
