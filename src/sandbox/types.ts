/**
 * The OS sandbox for `exec`: shared types. A Sandbox is chosen once per process (sandbox.ts): bubblewrap on
 * Linux, Seatbelt on macOS, none elsewhere. It turns a command (argv + cwd + env) into the command that runs it
 * contained. Layer: beside tool/ (imports util/ only); tool/builtin/exec and the wiring use it.
 */

/** `workspace-write` (default): project + session workspace + private /tmp writable; `read-only`: only the scratch dir. */
export type SandboxMode = "workspace-write" | "read-only" | "off";

export const SANDBOX_MODES: readonly SandboxMode[] = ["workspace-write", "read-only", "off"];

export function parseSandboxMode(v: string | undefined): SandboxMode | undefined {
  const s = v?.trim().toLowerCase();
  return SANDBOX_MODES.find((m) => m === s);
}

/** What the sandbox is doing in this process. `pending` until the (asynchronous) probe has answered. */
export type SandboxStatus =
  | { state: "active"; mode: Exclude<SandboxMode, "off">; kind: "bwrap" | "seatbelt" }
  | { state: "off" }
  | { state: "unavailable"; mode: Exclude<SandboxMode, "off">; reason: string }
  | { state: "pending"; mode: Exclude<SandboxMode, "off"> };

/** The places a sandbox needs to know about; all absolute. */
export interface SandboxRoots {
  projectRoot: string;
  /** The session workspace (`chatcli-agent-*`): `root` readable (saved tool results), `scratchDir` writable in every mode. */
  workspace?: { root: string; scratchDir: string };
  /** More files chatcli reads as configuration (the `.env` CHATCLI_DOTENV names): read-only like `.env`. */
  configFiles?: string[];
  /** Extra read-only paths (CHATCLI_AGENT_EXTRA_READ_PATHS): kept visible when they live under the private /tmp. */
  readable?: string[];
  /** chatcli's home (`~/.chatcli` or CHATCLI_HOME): read-only. */
  chatcliHome: string;
  /** The user's home, for the credential stores that are masked. */
  userHome: string;
  /** The session's working directory (its `.env` is chatcli configuration too). */
  cwd: string;
}

export interface SandboxSpec {
  mode: Exclude<SandboxMode, "off">;
  roots: SandboxRoots;
}

export interface WrapRequest {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** Open the network for this command (settings `network`, or an approved per-command request). */
  network: boolean;
}

export interface WrappedCommand {
  argv: string[];
  env: Record<string, string>;
  /** Undo what wrapping put on the host (mount-point placeholders). Safe to call twice; never throws. */
  cleanup(): void;
}

/** What exec sees: present only when commands really run contained. */
export interface ExecSandbox {
  readonly kind: "bwrap" | "seatbelt";
  readonly mode: Exclude<SandboxMode, "off">;
  /** Settings `network: true`: every command gets the network. */
  readonly network: boolean;
  wrap(req: WrapRequest): WrappedCommand;
}
