/**
 * The sandbox of this process: the mode from the configuration, the backend the platform has (bwrap, Seatbelt)
 * and whether it really works (probe.ts, asynchronous). `status()` never blocks; `ready()` starts the probe if
 * nobody has yet and resolves once it has answered (a `-p` run that never execs never probes: the first spawn of a
 * process costs Bun ~15 ms of CPU); `onSettled` waits for an answer without asking for one; `exec()` is the backend
 * exec uses, present only when commands really run contained.
 */
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bwrapWrap } from "./bwrap.ts";
import { fsPlan, type FsPlan } from "./fs-plan.ts";
import { probeSandbox, type ProbeResult } from "./probe.ts";
import { seatbeltWrap } from "./seatbelt.ts";
import type { ExecSandbox, SandboxMode, SandboxRoots, SandboxStatus } from "./types.ts";

export interface SandboxRuntimeOptions {
  mode: SandboxMode;
  /** Settings `sandbox.network`: every command gets the network. */
  network: boolean;
  roots: SandboxRoots;
  /** Default: the cached process-wide probe. */
  probe?: () => Promise<ProbeResult>;
}

export interface SandboxRuntime {
  readonly mode: SandboxMode;
  readonly network: boolean;
  status(): SandboxStatus;
  ready(): Promise<SandboxStatus>;
  /** Calls `cb` once the probe has answered (at once when it already has); never starts the probe. */
  onSettled(cb: (s: SandboxStatus) => void): void;
  exec(): ExecSandbox | undefined;
  /** Removes the helper file; safe to call twice. */
  dispose(): void;
}

export function createSandboxRuntime(o: SandboxRuntimeOptions): SandboxRuntime {
  const mode = o.mode;
  if (mode === "off") {
    const off: SandboxStatus = { state: "off" };
    return { mode, network: true, status: () => off, ready: () => Promise.resolve(off), onSettled: (cb) => void Promise.resolve(off).then(cb), exec: () => undefined, dispose: () => undefined };
  }
  let status: SandboxStatus = { state: "pending", mode };
  let backend: ExecSandbox | undefined;
  let plan: FsPlan | undefined;
  let helperDir: string | undefined;
  // The source of file placeholders and masks: an empty read-only file (writes to it fail with EROFS). /dev/null
  // serves when no temp dir can be written (writes then fail with EACCES instead).
  let empty: string | undefined;
  const emptyFile = (): string => {
    if (empty) return empty;
    for (const parent of [o.roots.workspace?.root, tmpdir(), "/tmp"]) {
      if (!parent) continue;
      try {
        helperDir = mkdtempSync(join(parent, "chatcli-sandbox-"));
        const f = join(helperDir, "empty");
        closeSync(openSync(f, "a", 0o444));
        empty = f;
        return f;
      } catch {
        // try the next place
      }
    }
    empty = "/dev/null";
    return empty;
  };
  let started: Promise<SandboxStatus> | undefined;
  const waiting: Array<(s: SandboxStatus) => void> = [];
  const ready = (): Promise<SandboxStatus> => {
    started ??= (o.probe ?? (() => probeSandbox()))().then((r) => {
      if (!r.ok) {
        status = { state: "unavailable", mode, reason: r.reason };
        return status;
      }
      plan = fsPlan({ mode, roots: o.roots });
      const p = plan;
      const scratch = o.roots.workspace?.scratchDir;
      backend = {
        kind: r.kind,
        mode,
        network: o.network,
        wrap: (req) => (r.kind === "bwrap" ? bwrapWrap(p, req, { bwrapPath: r.path, emptyFile: emptyFile() }) : seatbeltWrap(p, req, scratch)),
      };
      status = { state: "active", mode, kind: r.kind };
      return status;
    });
    void started.then((s) => {
      for (const cb of waiting.splice(0)) cb(s);
    });
    return started;
  };
  return {
    mode,
    network: o.network,
    status: () => status,
    ready,
    onSettled(cb) {
      if (started) void started.then(cb);
      else waiting.push(cb);
    },
    exec: () => backend,
    dispose() {
      if (helperDir) rmSync(helperDir, { recursive: true, force: true });
      helperDir = undefined;
    },
  };
}
