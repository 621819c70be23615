/**
 * The safety boundary of a session (issue 14), built first by wireSession: the temp workspace, the environment the
 * agent's commands get (secrets filtered out), the OS sandbox, the path policy and the permission policy.
 * `policyFor(root)` builds the same rules for another root (a subagent's worktree).
 */
import { homedir } from "node:os";
import type { Config } from "../config/load-config.ts";
import type { PermissionMode } from "../protocol/events.ts";
import { createSessionWorkspace, type SessionWorkspace } from "../store/session-workspace.ts";
import { createPathPolicy, parseExtraPaths, type PathPolicy } from "../tool/workspace.ts";
import { createPermissionPolicy, type PermissionPolicy } from "../tool/permission.ts";
import { createConfigGuard } from "../tool/permission/config-guard.ts";
import { createSandboxRuntime, type SandboxRuntime } from "../sandbox/sandbox.ts";
import { childEnv as filterChildEnv } from "../sandbox/child-env.ts";
import { providerKeyNames } from "./wire-env.ts";

export interface SessionSafety {
  workspace: SessionWorkspace | undefined;
  childEnv: Record<string, string>;
  sandbox: SandboxRuntime;
  paths: PathPolicy;
  policy: PermissionPolicy;
  /** The permission policy's rules for another project root, in `mode`. */
  policyFor(root: string, mode: PermissionMode): PermissionPolicy;
  configGuardFor(root: string): ReturnType<typeof createConfigGuard>;
}

export function wireSafety(cfg: Config, mode: PermissionMode): SessionSafety {
  let workspace: SessionWorkspace | undefined;
  try {
    workspace = createSessionWorkspace({ env: cfg.env });
  } catch {
    workspace = undefined; // large tool outputs then stay truncated in place; the session still works
  }
  // Secrets never reach the commands the agent runs, sandbox or not (settings `sandbox.env` passes names anyway).
  const childEnv = filterChildEnv({ ...cfg.env, ...(workspace?.childEnv ?? {}) }, { secretNames: providerKeyNames(cfg), allow: cfg.sandbox.envAllow }).env;
  const sandbox = createSandboxRuntime({
    mode: cfg.sandbox.mode,
    network: cfg.sandbox.network,
    roots: {
      projectRoot: cfg.projectRoot,
      cwd: cfg.cwd,
      chatcliHome: cfg.home,
      userHome: cfg.env.HOME || homedir(),
      readable: parseExtraPaths(cfg.env.CHATCLI_AGENT_EXTRA_READ_PATHS),
      ...(cfg.files.dotenv ? { configFiles: [cfg.files.dotenv] } : {}),
      ...(workspace ? { workspace: { root: workspace.root, scratchDir: workspace.scratchDir } } : {}),
    },
  });
  const paths = createPathPolicy({
    projectRoot: cfg.projectRoot,
    extraReadPaths: [...parseExtraPaths(cfg.env.CHATCLI_AGENT_EXTRA_READ_PATHS), ...(workspace ? [workspace.root] : [])],
    ...(workspace ? { extraWritePaths: [workspace.scratchDir] } : {}),
  });
  const policyFor = (root: string, m: PermissionMode) =>
    createPermissionPolicy({
      homeDir: cfg.home,
      projectRoot: root,
      mode: m,
      ...(cfg.env.HOME ? { userHome: cfg.env.HOME } : {}),
      denylist: (cfg.env.CHATCLI_AGENT_DENYLIST ?? "").split(/[,;\n]/),
      sandbox: {
        mode: sandbox.mode,
        get active() {
          return sandbox.status().state === "active";
        },
        network: sandbox.network,
      },
    });
  const configGuardFor = (root: string) => createConfigGuard({ chatcliHome: cfg.home, projectRoot: root, ...(cfg.env.HOME ? { userHome: cfg.env.HOME } : {}) });
  return { workspace, childEnv, sandbox, paths, policy: policyFor(cfg.projectRoot, mode), policyFor, configGuardFor };
}
