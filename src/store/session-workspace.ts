/**
 * The per-process session workspace: `$TMPDIR/chatcli-agent-<random>/` with `scratch/` (for tools and child
 * processes) and `tool-results/` (overflow saved by the result budget), all 0700. Parallel chatcli processes
 * never share one. Nothing is registered globally and process.env is never touched: the caller adds
 * `childEnv` to spawned processes, puts `root` on the read allowlist and calls `cleanup()` at session end.
 * Throws when the directory cannot be created; callers go on without a workspace (the budget then says
 * nothing could be saved).
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SessionWorkspace {
  root: string;
  scratchDir: string;
  toolResultsDir: string;
  /** Environment additions for child processes. */
  childEnv: { CHATCLI_AGENT_TMPDIR: string };
  /** Removes the workspace unless CHATCLI_AGENT_KEEP_TMPDIR=true. Safe to call twice; never throws. */
  cleanup(): { removed: boolean; kept: boolean; error?: string };
}

export interface SessionWorkspaceOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** Parent directory; defaults to $TMPDIR from `env`, then the OS temp dir. */
  tmpRoot?: string;
}

export function createSessionWorkspace(opts: SessionWorkspaceOptions): SessionWorkspace {
  const parent = opts.tmpRoot ?? nonEmpty(opts.env.TMPDIR) ?? tmpdir();
  // realpath: on macOS /tmp is a symlink; allowlists compare real paths.
  const root = realpathSync(mkdtempSync(join(parent, "chatcli-agent-")));
  chmodSync(root, 0o700);
  const scratchDir = join(root, "scratch");
  const toolResultsDir = join(root, "tool-results");
  for (const dir of [scratchDir, toolResultsDir]) {
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o700);
  }
  const keep = opts.env.CHATCLI_AGENT_KEEP_TMPDIR?.trim().toLowerCase() === "true";
  let removed = false;
  return {
    root,
    scratchDir,
    toolResultsDir,
    childEnv: { CHATCLI_AGENT_TMPDIR: scratchDir },
    cleanup() {
      if (keep) return { removed: false, kept: true };
      if (removed) return { removed: true, kept: false };
      try {
        rmSync(root, { recursive: true, force: true });
        removed = true;
        return { removed: true, kept: false };
      } catch (e) {
        return { removed: false, kept: false, error: e instanceof Error ? e.message : String(e) };
      }
    },
  };
}

function nonEmpty(s: string | undefined): string | undefined {
  return s && s.trim() !== "" ? s : undefined;
}
