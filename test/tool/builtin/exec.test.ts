import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execTool } from "../../../src/tool/builtin/exec.ts";
import { makeCtx, type TempProject, tempProject } from "./support.ts";

let proj: TempProject;
beforeEach(() => {
  proj = tempProject("chatcli-exec-");
});
afterEach(() => proj.cleanup());

/** Gone = no such process, or a zombie waiting to be reaped (it no longer runs). */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (cond()) return true;
    await Bun.sleep(20);
  }
  return cond();
}

describe("exec", () => {
  test("combined stdout+stderr, then the exit code", async () => {
    const out = await execTool.run({ command: "echo out; echo err >&2" }, makeCtx(proj.root));
    expect(out.isError).toBeUndefined();
    expect(out.text).toContain("out\n");
    expect(out.text).toContain("err\n");
    expect(out.text.endsWith("exit code 0")).toBe(true);
    expect(out.details?.exitCode).toBe(0);
  });

  test("a non-zero exit is an error with ExitCode:N", async () => {
    const out = await execTool.run({ command: "echo failing; exit 3" }, makeCtx(proj.root));
    expect(out.isError).toBe(true);
    expect(out.errorCode).toBe("ExitCode:3");
    expect(out.text).toBe("failing\nexit code 3");
  });

  test("cwd is relative to the session cwd and must stay inside the project", async () => {
    mkdirSync(path.join(proj.root, "sub"));
    const out = await execTool.run({ command: "pwd", cwd: "sub" }, makeCtx(proj.root));
    expect(out.text).toBe(`${path.join(proj.root, "sub")}\nexit code 0`);
    expect((await execTool.run({ command: "pwd", cwd: "/" }, makeCtx(proj.root))).errorCode).toBe("outside_project");
    expect((await execTool.run({ command: "pwd", cwd: "nope" }, makeCtx(proj.root))).errorCode).toBe("ENOENT");
  });

  test("the environment comes from ctx.env", async () => {
    const ctx = makeCtx(proj.root, { env: { PATH: process.env.PATH, CHATCLI_TEST_VAR: "from-ctx" } });
    const out = await execTool.run({ command: 'echo "v=$CHATCLI_TEST_VAR"' }, ctx);
    expect(out.text).toBe("v=from-ctx\nexit code 0");
  });

  test("output streams to onUpdate while the command runs", async () => {
    // The command waits for a file that only the onUpdate listener creates: it finishes only if streaming works.
    const chunks: string[] = [];
    const go = path.join(proj.root, "go");
    const ctx = makeCtx(proj.root, {
      onUpdate: (c) => {
        chunks.push(c);
        if (chunks.join("").includes("ready")) writeFileSync(go, "");
      },
    });
    const out = await execTool.run({ command: 'echo ready; while [ ! -f go ]; do sleep 0.02; done; echo done', timeout_ms: 8000 }, ctx);
    expect(out.errorCode).toBeUndefined();
    expect(chunks.join("")).toBe("ready\ndone\n");
    expect(out.text).toBe("ready\ndone\nexit code 0");
  });

  test("1 MB of output is capped at 30k + marker and the full text is saved", async () => {
    const saved: string[] = [];
    const ctx = makeCtx(proj.root, { saveOverflow: (t) => (saved.push(t), path.join(proj.root, "overflow.txt")) });
    const out = await execTool.run({ command: "head -c 1000000 /dev/zero | tr '\\0' a; echo; echo tail-line" }, ctx);
    const marker = out.text.match(/\n\[TRUNCATED (\d+) chars omitted, (\d+) kept\] \[full output saved to ([^\]]+)\]\n/);
    expect(marker?.[3]).toBe(path.join(proj.root, "overflow.txt"));
    expect(out.text.length - (marker?.[0].length ?? 0)).toBeLessThanOrEqual(30_000);
    expect(out.text.endsWith("tail-line\nexit code 0")).toBe(true);
    expect(saved).toHaveLength(1);
    expect(saved[0]?.length).toBe(1_000_000 + "\ntail-line\nexit code 0".length);
  });

  test("output past the memory bound (2M + 2M chars) keeps its head and latest tail, and says how much was dropped (issue 26 #6)", async () => {
    const saved: string[] = [];
    const ctx = makeCtx(proj.root, { saveOverflow: (t) => (saved.push(t), path.join(proj.root, "overflow.txt")) });
    const out = await execTool.run({ command: "echo first-line; head -c 6000000 /dev/zero | tr '\\0' a; echo; echo tail-line" }, ctx);
    expect(out.text.endsWith("tail-line\nexit code 0")).toBe(true);
    const full = saved[0]!;
    expect(full.startsWith("first-line\n")).toBe(true);
    const dropped = Number(full.match(/\[\.\.\. (\d+) chars of output were not kept in memory \.\.\.\]/)?.[1]);
    expect(dropped).toBeGreaterThan(1_500_000);
    expect(full.length).toBeLessThan(4_200_000);
    // Kept + dropped is the whole output (plus the marker line and the exit code).
    expect(full.length + dropped).toBeGreaterThanOrEqual(6_000_022);
    expect(full.length + dropped).toBeLessThan(6_000_022 + 120);
  });

  test("timeout kills the command", async () => {
    const out = await execTool.run({ command: "sleep 20", timeout_ms: 200 }, makeCtx(proj.root));
    expect(out.errorCode).toBe("Timeout");
    expect(out.details?.timedOut).toBe(true);
  });

  test("abort kills the whole process group promptly", async () => {
    const ac = new AbortController();
    const pidFile = path.join(proj.root, "child.pid");
    const running = execTool.run({ command: `sleep 30 & echo $! > child.pid; wait` }, makeCtx(proj.root, { signal: ac.signal }));
    expect(await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "", 5000)).toBe(true);
    const childPid = Number(readFileSync(pidFile, "utf8").trim());
    expect(processGone(childPid)).toBe(false);
    ac.abort();
    const out = await running;
    expect(out.errorCode).toBe("Canceled");
    expect(await waitFor(() => processGone(childPid), 1000)).toBe(true);
  });

  test("a background child holding the pipes does not hang the tool", async () => {
    const out = await execTool.run({ command: "sleep 30 & echo $!" }, makeCtx(proj.root));
    const pid = Number(out.text.split("\n")[0]);
    try {
      expect(out.errorCode).toBeUndefined();
      expect(out.text.endsWith("exit code 0")).toBe(true);
    } finally {
      if (pid > 0) process.kill(pid, "SIGKILL");
    }
  });

  test("falls back to sh when bash is not on the PATH", async () => {
    const bin = path.join(proj.root, "bin");
    mkdirSync(bin);
    const sh = Bun.which("sh");
    if (!sh) throw new Error("sh is required for this test");
    symlinkSync(sh, path.join(bin, "sh"));
    const out = await execTool.run({ command: 'echo "bash=${BASH_VERSION:-none}"' }, makeCtx(proj.root, { env: { PATH: bin } }));
    expect(out.text).toBe("bash=none\nexit code 0");
    const withBash = await execTool.run({ command: 'echo "bash=${BASH_VERSION:-none}"' }, makeCtx(proj.root));
    expect(withBash.text).not.toContain("bash=none");
  });

  test("timeout_ms above the maximum is an invalid_args error", async () => {
    const out = await execTool.run({ command: "true", timeout_ms: 700_000 }, makeCtx(proj.root));
    expect(out.errorCode).toBe("invalid_args");
    expect(out.text).toContain("timeout_ms");
  });

  test("no output still reports the exit code; cmd alias accepted", async () => {
    const out = await execTool.run({ cmd: "true" }, makeCtx(proj.root));
    expect(out.text).toBe("(no output)\nexit code 0");
  });
});
