/** Runs the compiled binary the way a user would: copied to a temp dir, no node_modules anywhere near it. */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const BUILT_BINARY = join(import.meta.dir, "../../dist/chatcli");

export interface BinaryEnv {
  dir: string;
  bin: string;
  home: string;
  env: Record<string, string>;
  cleanup(): void;
}

export function isolatedBinary(source = process.env.CHATCLI_BINARY || BUILT_BINARY): BinaryEnv {
  if (!existsSync(source)) throw new Error(`no compiled binary at ${source}: run \`npm run build\` first`);
  const dir = mkdtempSync(join(tmpdir(), "chatcli-bin-"));
  const bin = join(dir, "chatcli");
  copyFileSync(source, bin);
  Bun.spawnSync(["chmod", "+x", bin]);
  const home = join(dir, "home");
  const work = join(dir, "work");
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    CHATCLI_HOME: join(home, ".chatcli"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
  };
  return { dir: work, bin, home, env, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function run(b: BinaryEnv, args: string[], extraEnv: Record<string, string> = {}, stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return runAt(b, b.dir, args, extraEnv, stdin);
}

/** `run` from another working directory (a project of the test's own). */
export async function runAt(b: BinaryEnv, cwd: string, args: string[], extraEnv: Record<string, string> = {}, stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([b.bin, ...args], {
    cwd,
    env: { ...b.env, ...extraEnv },
    stdin: stdin !== undefined ? new TextEncoder().encode(stdin) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/**
 * The shell line a tmux pane runs: the binary with `args` in `cwd` (default b.dir), its env b.env plus `env`,
 * then `after` (default `sleep 30`, so the pane outlives the process and its last screen can still be read).
 * Values are single-quoted, so they must not hold a `'`.
 */
export function paneCommand(b: BinaryEnv, args: string, o: { env?: Record<string, string>; cwd?: string; after?: string } = {}): string {
  const envs = Object.entries({ ...b.env, ...o.env }).map(([k, v]) => `${k}='${v}'`).join(" ");
  return `cd '${o.cwd ?? b.dir}' && env ${envs} '${b.bin}'${args ? ` ${args}` : ""}; ${o.after ?? "sleep 30"}`;
}

export function hasTmux(): boolean {
  return Bun.spawnSync(["sh", "-c", "command -v tmux"], { stdout: "pipe" }).exitCode === 0;
}

/** A tmux session running a command; helpers to wait for screen text and send keys. */
export class Tmux {
  readonly name = `chatcli-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  constructor(
    readonly socket: string,
    cmd: string,
    cols = 100,
    rows = 30,
  ) {
    const r = Bun.spawnSync(["tmux", "-S", socket, "new-session", "-d", "-s", this.name, "-x", String(cols), "-y", String(rows), cmd], { stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`tmux failed: ${r.stderr.toString()}`);
  }
  capture(): string {
    return Bun.spawnSync(["tmux", "-S", this.socket, "capture-pane", "-p", "-t", this.name], { stdout: "pipe" }).stdout.toString();
  }
  display(fmt: string): string {
    return Bun.spawnSync(["tmux", "-S", this.socket, "display-message", "-p", "-t", this.name, fmt], { stdout: "pipe" }).stdout.toString().trim();
  }
  send(...keys: string[]): void {
    Bun.spawnSync(["tmux", "-S", this.socket, "send-keys", "-t", this.name, ...keys]);
  }
  sendLiteral(text: string): void {
    Bun.spawnSync(["tmux", "-S", this.socket, "send-keys", "-t", this.name, "-l", text]);
  }
  async waitFor(pred: (screen: string) => boolean, timeoutMs = 8000): Promise<string> {
    const end = Date.now() + timeoutMs;
    let last = "";
    while (Date.now() < end) {
      last = this.capture();
      if (pred(last)) return last;
      await Bun.sleep(50);
    }
    throw new Error(`timed out waiting for screen; last screen:\n${last}`);
  }
  kill(): void {
    Bun.spawnSync(["tmux", "-S", this.socket, "kill-server"], { stdout: "ignore", stderr: "ignore" });
  }
}
