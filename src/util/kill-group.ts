/**
 * Kills a child spawned `detached` (its own process group) with everything it started: the group, or the child
 * alone when the group cannot be signalled. Never throws.
 */
import type { ChildProcess } from "node:child_process";

export function killProcessGroup(child: Pick<ChildProcess, "pid" | "kill">, signal: NodeJS.Signals = "SIGKILL"): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}
