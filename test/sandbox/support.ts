/** Real-bwrap fixtures: a temp project (git repo, .chatcli/), a temp home, a session workspace, and exec over them. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execTool } from "../../src/tool/builtin/exec.ts";
import type { ToolOutput } from "../../src/tool/tool.ts";
import { createPathPolicy } from "../../src/tool/workspace.ts";
import { createSandboxRuntime, type SandboxRuntime } from "../../src/sandbox/sandbox.ts";
import { probeSandbox } from "../../src/sandbox/probe.ts";
import type { SandboxMode } from "../../src/sandbox/types.ts";
import { createSessionWorkspace, type SessionWorkspace } from "../../src/store/session-workspace.ts";

/** Why real-sandbox tests cannot run here, or undefined when bwrap works. */
export async function bwrapUnavailable(): Promise<string | undefined> {
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  const r = await probeSandbox("linux", process.env);
  return r.ok ? undefined : r.reason;
}

export interface SandboxFixture {
  base: string;
  project: string;
  home: string;
  /** chatcli's home (CHATCLI_HOME) inside `home`. */
  chatcliHome: string;
  outside: string;
  workspace: SessionWorkspace;
  runtime: SandboxRuntime;
  exec(command: string, extra?: { network?: boolean; env?: Record<string, string> }): Promise<ToolOutput>;
  cleanup(): void;
}

export async function sandboxFixture(o: { mode?: Exclude<SandboxMode, "off">; network?: boolean } = {}): Promise<SandboxFixture> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "chatcli-sbx-")));
  const project = join(base, "project");
  const home = join(base, "home");
  const outside = join(base, "outside");
  const chatcliHome = join(home, ".chatcli");
  for (const d of [project, home, outside, chatcliHome, join(project, ".chatcli"), join(home, ".ssh")]) mkdirSync(d, { recursive: true });
  Bun.spawnSync(["git", "init", "-q"], { cwd: project });
  writeFileSync(join(project, ".chatcli", "settings.json"), '{"permissionMode":"default"}\n');
  writeFileSync(join(chatcliHome, "settings.json"), '{"permissionMode":"default"}\n');
  writeFileSync(join(home, ".ssh", "id_rsa"), "PRIVATE-KEY-CANARY\n");
  writeFileSync(join(project, "README.md"), "hello\n");
  const workspace = createSessionWorkspace({ env: {}, tmpRoot: base });
  const runtime = createSandboxRuntime({
    mode: o.mode ?? "workspace-write",
    network: o.network ?? false,
    roots: { projectRoot: project, cwd: project, chatcliHome, userHome: home, workspace: { root: workspace.root, scratchDir: workspace.scratchDir } },
  });
  await runtime.ready();
  const paths = createPathPolicy({ projectRoot: project, extraReadPaths: [workspace.root], extraWritePaths: [workspace.scratchDir] });
  return {
    base,
    project,
    home,
    chatcliHome,
    outside,
    workspace,
    runtime,
    exec: (command, extra = {}) => {
      const sandbox = runtime.exec();
      return execTool.run(
        { command, ...(extra.network ? { network: true } : {}) },
        {
          projectRoot: project,
          cwd: project,
          paths,
          signal: new AbortController().signal,
          callId: "c1",
          env: { PATH: process.env.PATH, HOME: home, ...workspace.childEnv, ...(extra.env ?? {}) },
          ...(sandbox ? { sandbox } : {}),
        },
      );
    },
    cleanup: () => {
      runtime.dispose();
      rmSync(base, { recursive: true, force: true });
    },
  };
}
