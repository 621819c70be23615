/**
 * The stdio transport: the server runs as a child process in its own process group (so `close()` kills it and
 * everything it started: `npx` → node → …), newline-delimited JSON-RPC on stdin/stdout.
 *
 * Our own instead of the SDK's StdioClientTransport because of three contracts that one does not keep:
 * - a line on stdout that is not a JSON-RPC message (a banner, a stray `console.log`) is logged and skipped, and
 *   the messages after it are still read;
 * - stderr goes to our log (never to the terminal, which the TUI owns);
 * - the whole process group is killed at close (SIGTERM, then SIGKILL after a grace period).
 * It implements the SDK's Transport interface (type only), so the SDK's Client drives it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export interface StdioTransportOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** A line of the server's stderr, or a note about skipped stdout garbage. */
  log(line: string): void;
  /** Validates one parsed stdout line (the SDK's JSONRPCMessageSchema, loaded lazily by the caller). */
  isMessage(value: unknown): value is JSONRPCMessage;
  /** Grace before SIGKILL after SIGTERM at close; default 2 s. */
  killGraceMs?: number;
}

/** Longest stdout line kept while waiting for its newline; a longer one is dropped as garbage (10 MB). */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private buffer = "";
  private dropping = false;
  private closed = false;
  private stderrTail = "";
  /** How the child ended, for the failure reason (`exited with code 1: <last stderr line>`). */
  exitReason: string | undefined;

  constructor(private readonly o: StdioTransportOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last stderr line the server wrote (shown with a failed start). */
  get lastStderr(): string {
    return this.stderrTail.trim().split("\n").pop() ?? "";
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn(this.o.command, this.o.args, {
          env: this.o.env,
          ...(this.o.cwd ? { cwd: this.o.cwd } : {}),
          stdio: ["pipe", "pipe", "pipe"],
          detached: true,
          windowsHide: true,
        });
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      this.child = child;
      child.once("error", (err) => {
        this.exitReason = err.message;
        reject(err);
        this.finish();
      });
      child.once("spawn", () => resolve());
      child.stdout?.setEncoding("utf8");
      child.stdout?.on("data", (chunk: string) => this.onStdout(chunk));
      child.stderr?.setEncoding("utf8");
      child.stderr?.on("data", (chunk: string) => {
        this.stderrTail = (this.stderrTail + chunk).slice(-2000);
        for (const line of chunk.split("\n")) if (line.trim()) this.o.log(`stderr: ${line.trimEnd()}`);
      });
      child.stdin?.on("error", () => undefined); // EPIPE after the child died: reported through exit
      child.once("exit", (code, signal) => {
        this.exitReason ??= signal ? `killed by ${signal}` : `exited with code ${code ?? "?"}`;
        this.finish();
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.closed || stdin.destroyed) {
        reject(new Error("the server process is not running"));
        return;
      }
      stdin.write(JSON.stringify(message) + "\n", (err) => (err ? reject(err) : resolve()));
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      this.finish();
      return;
    }
    // The MCP shutdown order: close its stdin, then SIGTERM, then SIGKILL (each to the whole group).
    const exited = new Promise<"exited">((r) => child.once("exit", () => r("exited")));
    const after = (ms: number) => new Promise<"timeout">((r) => setTimeout(() => r("timeout"), ms).unref());
    child.stdin?.end();
    if ((await Promise.race([exited, after(300)])) === "timeout") {
      killGroup(child, "SIGTERM");
      if ((await Promise.race([exited, after(this.o.killGraceMs ?? 2000)])) === "timeout") killGroup(child, "SIGKILL");
    }
    // Whatever it started in its group goes with it, even when the leader exited on its own.
    killGroup(child, "SIGKILL");
    this.finish();
  }

  /** Synchronous kill of the group (process exit path: no time for a grace period). */
  killNow(): void {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) killGroup(this.child, "SIGKILL");
  }

  private onStdout(chunk: string): void {
    this.buffer += chunk;
    for (;;) {
      const nl = this.buffer.indexOf("\n");
      if (nl < 0) break;
      const line = this.buffer.slice(0, nl).replace(/\r$/, "");
      this.buffer = this.buffer.slice(nl + 1);
      if (this.dropping) {
        this.dropping = false;
        continue;
      }
      this.onLine(line);
    }
    if (this.buffer.length > MAX_LINE_BYTES) {
      this.o.log(`stdout: dropped a line longer than ${MAX_LINE_BYTES} bytes`);
      this.buffer = "";
      this.dropping = true;
    }
  }

  private onLine(line: string): void {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch {
      this.o.log(`stdout (not JSON-RPC, skipped): ${line.slice(0, 300)}`);
      return;
    }
    if (!this.o.isMessage(value)) {
      this.o.log(`stdout (not a JSON-RPC message, skipped): ${line.slice(0, 300)}`);
      return;
    }
    this.onmessage?.(value);
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // the group is gone already
  }
}
