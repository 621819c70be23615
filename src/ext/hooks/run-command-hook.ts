/**
 * Runs one command hook: a real shell (`bash -c`, else `sh -c`) in the project directory, the event JSON on stdin.
 * Hooks are the user's own commands (from their settings, or project settings the user trusted), so they run
 * outside the OS sandbox, with the user's environment plus CLAUDE_PROJECT_DIR / CHATCLI_PROJECT_DIR.
 * The hook gets its own process group: a timeout (or an abort) kills the whole group, not just the shell.
 * Never throws: a spawn failure is reported as `startError`.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { killProcessGroup } from "../../util/kill-group.ts";

export interface ProcessRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The shell itself could not be started. */
  startError?: string;
  durationMs: number;
}

const OUTPUT_CAP = 1_000_000;
const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";

export function runCommandHook(o: { command: string; input: string; cwd: string; env: Record<string, string | undefined>; timeoutMs: number; signal?: AbortSignal }): Promise<ProcessRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(SHELL, ["-c", o.command], { cwd: o.cwd, env: definedOnly(o.env), detached: true, stdio: ["pipe", "pipe", "pipe"] });
    } catch (err) {
      return resolve({ exitCode: null, stdout: "", stderr: "", timedOut: false, startError: (err as Error).message, durationMs: Date.now() - started });
    }
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let done = false;
    const killGroup = () => killProcessGroup(child);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, o.timeoutMs);
    const onAbort = () => killGroup();
    o.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout?.on("data", (d: Buffer) => {
      if (stdout.length < OUTPUT_CAP) stdout += d.toString("utf8");
    });
    child.stderr?.on("data", (d: Buffer) => {
      if (stderr.length < OUTPUT_CAP) stderr += d.toString("utf8");
    });
    // A hook that never reads its stdin closes the pipe: not an error.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(o.input);
    const finish = (r: Omit<ProcessRun, "durationMs">) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
      resolve({ ...r, durationMs: Date.now() - started });
    };
    child.on("error", (err) => finish({ exitCode: null, stdout, stderr, timedOut, startError: err.message }));
    child.on("close", (code, sig) => finish({ exitCode: code ?? (sig ? 128 + signalNumber(sig) : null), stdout, stderr, timedOut }));
  });
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

function signalNumber(sig: NodeJS.Signals): number {
  return sig === "SIGKILL" ? 9 : sig === "SIGTERM" ? 15 : sig === "SIGINT" ? 2 : 1;
}
