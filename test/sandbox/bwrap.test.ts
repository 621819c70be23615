// The sandbox really contains, with the real bwrap: writes outside the writable roots, .git/, .chatcli/ and
// ~/.chatcli/ fail; credential stores look empty; 127.0.0.1 servers are out of reach unless the network is opened;
// the parent's environment cannot be read. Skipped (with the reason) only where bwrap cannot run.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bwrapUnavailable, sandboxFixture, type SandboxFixture } from "./support.ts";

const why = await bwrapUnavailable();
if (why) console.warn(`sandbox tests skipped: ${why}`);

let f: SandboxFixture | undefined;
afterEach(() => {
  f?.cleanup();
  f = undefined;
});

describe.skipIf(why !== undefined)("bwrap sandbox (real)", () => {
  test("the project, the scratch dir and the private /tmp are writable; /tmp is not the host's", async () => {
    f = await sandboxFixture();
    expect(f.runtime.status()).toEqual({ state: "active", mode: "workspace-write", kind: "bwrap" });
    const marker = `chatcli-sbx-private-${process.pid}-${Date.now()}`;
    const r = await f.exec(`echo made > built.txt && mkdir -p out/x && echo ok > out/x/y && echo s > "$CHATCLI_AGENT_TMPDIR/s" && echo t > /tmp/${marker} && cat /tmp/${marker}`);
    expect(r.isError).toBeUndefined();
    expect(readFileSync(join(f.project, "built.txt"), "utf8")).toBe("made\n");
    expect(readFileSync(join(f.project, "out/x/y"), "utf8")).toBe("ok\n");
    expect(readFileSync(join(f.workspace.scratchDir, "s"), "utf8")).toBe("s\n");
    expect(existsSync(`/tmp/${marker}`)).toBe(false);
    expect(r.details).toMatchObject({ sandboxed: "bwrap", network: false });
  });

  test("writes outside the writable roots fail and leave the canaries untouched", async () => {
    f = await sandboxFixture();
    const visible = join(f.home, "outside-canary");
    mkdirSync(visible);
    writeFileSync(join(visible, "c.txt"), "canary\n");
    const r = await f.exec(`echo pwned > ${visible}/c.txt; echo pwned > ${visible}/new.txt; touch ${f.outside}/new; echo pwned >> ${f.home}/.bashrc; rm -f ${visible}/c.txt; exit 0`);
    expect(r.text).toContain("Read-only file system");
    expect(readFileSync(join(visible, "c.txt"), "utf8")).toBe("canary\n");
    expect(existsSync(join(visible, "new.txt"))).toBe(false);
    expect(existsSync(join(f.outside, "new"))).toBe(false);
    expect(existsSync(join(f.home, ".bashrc"))).toBe(false);
  });

  test(".git/config, .git/hooks, <project>/.chatcli and ~/.chatcli cannot be modified", async () => {
    f = await sandboxFixture();
    const gitConfig = readFileSync(join(f.project, ".git/config"), "utf8");
    const r = await f.exec(
      [
        "git config core.fsmonitor 'touch /tmp/x'",
        "echo '[core]' >> .git/config",
        "echo 'touch PWNED' > .git/hooks/pre-commit",
        "rm -rf .git",
        "mv .chatcli moved",
        'echo \'{"permissionMode":"bypass"}\' > .chatcli/settings.json',
        'echo \'{"rules":[{"pattern":"exec *","action":"allow"}]}\' > .chatcli/coder_policy.json',
        `echo '{"permissionMode":"bypass"}' > ${f.chatcliHome}/settings.json`,
        "true",
      ].join("; "),
    );
    expect(r.text).toContain("Read-only file system");
    expect(readFileSync(join(f.project, ".git/config"), "utf8")).toBe(gitConfig);
    expect(existsSync(join(f.project, ".git/hooks/pre-commit"))).toBe(false);
    expect(readFileSync(join(f.project, ".chatcli/settings.json"), "utf8")).toBe('{"permissionMode":"default"}\n');
    expect(existsSync(join(f.project, ".chatcli/coder_policy.json"))).toBe(false);
    expect(existsSync(join(f.project, "moved"))).toBe(false);
    expect(readFileSync(join(f.chatcliHome, "settings.json"), "utf8")).toBe('{"permissionMode":"default"}\n');
  });

  test("a .chatcli/ or .env that does not exist cannot be created, and no placeholder is left behind", async () => {
    f = await sandboxFixture();
    rmSync(join(f.project, ".chatcli"), { recursive: true });
    const r = await f.exec(`mkdir -p .chatcli; echo '{"permissionMode":"bypass"}' > .chatcli/settings.json; echo CHATCLI_HOME=/tmp/evil > .env; ls -a`);
    expect(r.text).toContain("Read-only file system");
    expect(existsSync(join(f.project, ".chatcli"))).toBe(false);
    expect(existsSync(join(f.project, ".env"))).toBe(false);
  });

  test("credential stores look empty", async () => {
    f = await sandboxFixture();
    const r = await f.exec(`cat ${f.home}/.ssh/id_rsa; ls -A ${f.home}/.ssh | wc -l`);
    expect(r.text).not.toContain("PRIVATE-KEY-CANARY");
    expect(r.text).toContain("No such file");
  });

  test("no network: a 127.0.0.1 server is out of reach, and the failure says why; network: true opens it", async () => {
    let hits = 0;
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => (hits++, new Response("pong\n")) });
    try {
      f = await sandboxFixture();
      const probe = `exec 3<>/dev/tcp/127.0.0.1/${server.port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;
      const closed = await f.exec(probe);
      expect(closed.isError).toBe(true);
      expect(hits).toBe(0);
      expect(closed.details?.sandboxFailure).toMatchObject({ kind: "network" });
      expect(closed.text).toContain("[sandbox]");
      expect(closed.text).toContain('"network": true');
      const open = await f.exec(probe, { network: true });
      expect(open.text).toContain("pong");
      expect(hits).toBe(1);
      expect(open.details).toMatchObject({ network: true });
    } finally {
      server.stop(true);
    }
  });

  test("the parent's environment (/proc/$PPID/environ) is out of reach; without the sandbox it is not", async () => {
    const canary = `sk-parent-canary-${Date.now()}`;
    const p = Bun.spawn([process.execPath, join(import.meta.dir, "environ-probe.ts")], { env: { ...process.env, SANDBOX_PARENT_CANARY: canary }, stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
    expect(await p.exited).toBe(0);
    const r = JSON.parse(out) as { active: boolean; sandboxed: string; plain: string };
    expect(r.active, err).toBe(true);
    expect(r.plain).toContain(canary); // the control: the probe does reach the parent when unsandboxed
    expect(r.sandboxed).not.toContain(canary);
  });

  test("read-only mode: nothing but the scratch dir (and the private /tmp) is writable", async () => {
    f = await sandboxFixture({ mode: "read-only" });
    const r = await f.exec(`echo s > "$CHATCLI_AGENT_TMPDIR/s"; echo t > /tmp/t && cat /tmp/t && echo x > in-project.txt`);
    expect(r.text).toContain("Read-only file system");
    expect(existsSync(join(f.project, "in-project.txt"))).toBe(false);
    expect(readFileSync(join(f.workspace.scratchDir, "s"), "utf8")).toBe("s\n");
    expect(r.details?.sandboxFailure).toMatchObject({ kind: "filesystem" });
  });

  test("a timeout kills the whole sandboxed process tree", async () => {
    f = await sandboxFixture();
    const marker = `31.${process.pid}`;
    const sandbox = f.runtime.exec()!;
    const { execTool } = await import("../../src/tool/builtin/exec.ts");
    const { createPathPolicy } = await import("../../src/tool/workspace.ts");
    const r = await execTool.run(
      { command: `sleep ${marker} & sleep ${marker}`, timeout_ms: 300 },
      { projectRoot: f.project, cwd: f.project, paths: createPathPolicy({ projectRoot: f.project, extraReadPaths: [] }), signal: new AbortController().signal, callId: "t", env: { PATH: process.env.PATH }, sandbox },
    );
    expect(r.errorCode).toBe("Timeout");
    await Bun.sleep(300);
    const left = Bun.spawnSync(["pgrep", "-f", `sleep ${marker}`]).stdout.toString().trim();
    expect(left).toBe("");
  });
});

describe.skipIf(why !== undefined)("daemon sockets (real bwrap)", () => {
  test("a unix socket on a read-only mount stays connectable, so daemon sockets are masked", async () => {
    const { fsPlan } = await import("../../src/sandbox/fs-plan.ts");
    const { bwrapArgs } = await import("../../src/sandbox/bwrap.ts");
    f = await sandboxFixture();
    const masks = fsPlan({ mode: "workspace-write", roots: { projectRoot: f.project, cwd: f.project, chatcliHome: f.chatcliHome, userHome: f.home } }).masks.map((m) => m.path);
    for (const p of ["/run/docker.sock", "/run/user", "/run/dbus"]) expect(masks).toContain(p);
    // The mechanism, on a socket of our own: bound over with an empty file, connect() is refused.
    const sock = join(f.home, "daemon.sock");
    const server = Bun.listen({ unix: sock, socket: { data: () => undefined } });
    try {
      const connect = `python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('${sock}'); print('CONNECTED')"`;
      const plain = await f.exec(connect);
      if (!plain.text.includes("CONNECTED") && plain.text.includes("python3")) return; // no python3 here: nothing to show
      expect(plain.text).toContain("CONNECTED"); // read-only is not enough
      const { args } = bwrapArgs({ writable: [f.project], readable: [f.home], protected: [], masks: [{ path: sock, kind: "file" }] }, { cwd: f.project, network: false }, { emptyFile: "/dev/null" });
      const masked = Bun.spawnSync(["bwrap", ...args, "--", "sh", "-c", connect], { stderr: "pipe", stdout: "pipe" });
      expect(masked.stdout.toString() + masked.stderr.toString()).not.toContain("CONNECTED");
    } finally {
      server.stop(true);
    }
  });
});
