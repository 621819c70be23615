/** scripts/install.sh run under dash (POSIX sh) against local artifact folders and a 127.0.0.1 release server. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { corrupt, writeRelease, writeReleaseTree } from "./fake-release.ts";

const SCRIPT = join(import.meta.dir, "../../scripts/install.sh");
const SHELL = Bun.which("dash") ?? "sh";
const hasCurl = Bun.which("curl") !== null;

let base: string;
let scratch: string;

beforeAll(() => {
  base = writeReleaseTree(["0.2.0", "0.3.0"]);
  scratch = mkdtempSync(join(tmpdir(), "chatcli-install-"));
});
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

let n = 0;
function freshDir(): string {
  const d = join(scratch, `case-${++n}`);
  mkdirSync(d, { recursive: true });
  return d;
}

/** A PATH entry with fake `uname` (and optionally `ldd`) to pose as another system. */
function fakeSystem(dir: string, s: string, m: string, ldd?: string): string {
  const bin = join(dir, "fakebin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "uname"), `#!/bin/sh\ncase "$1" in -s) echo ${s} ;; -m) echo ${m} ;; *) echo ${s} ;; esac\n`);
  chmodSync(join(bin, "uname"), 0o755);
  if (ldd !== undefined) {
    writeFileSync(join(bin, "ldd"), `#!/bin/sh\necho "${ldd}" >&2\nexit 1\n`);
    chmodSync(join(bin, "ldd"), 0o755);
  }
  return bin;
}

async function install(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([SHELL, SCRIPT, ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: scratch, SHELL: "/bin/bash", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

function runInstalled(path: string): string {
  return Bun.spawnSync([path], { stdout: "pipe" }).stdout.toString().trim();
}

describe("install.sh", () => {
  // .ci/run installs shellcheck; where it is missing the check is reported as skipped, never as passed.
  test.skipIf(!Bun.which("shellcheck"))("is shellcheck-clean as POSIX sh", () => {
    const r = Bun.spawnSync(["shellcheck", "-s", "sh", SCRIPT], { stdout: "pipe", stderr: "pipe" });
    expect(r.stdout.toString()).toBe("");
    expect(r.exitCode).toBe(0);
  });

  test("installs the latest binary for this machine and says how to add the dir to PATH", async () => {
    const dir = join(freshDir(), "bin");
    const r = await install(["--from", base], { CHATCLI_INSTALL_DIR: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const host = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
    expect(runInstalled(join(dir, "chatcli"))).toBe(`fake chatcli-${host} 0.3.0`);
    expect(statSync(join(dir, "chatcli")).mode & 0o777).toBe(0o755);
    expect(r.stdout).toContain(`installed fake chatcli-${host} 0.3.0 --version to ${dir}/chatcli`);
    expect(r.stdout).toContain(`${dir} is not on your PATH`);
    expect(r.stdout).toContain(`export PATH="${dir}:$PATH"' >> ${scratch}/.bashrc`);
  });

  test("no PATH advice when the install dir is already on PATH", async () => {
    const dir = join(freshDir(), "bin");
    const r = await install(["--from", base], { CHATCLI_INSTALL_DIR: dir, PATH: `${dir}:${process.env.PATH}` });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("not on your PATH");
  });

  test.each([
    ["Linux", "x86_64", "ldd (GNU libc) 2.36", "linux-x64"],
    ["Linux", "x86_64", "musl libc (x86_64)", "linux-x64-musl"],
    ["Linux", "aarch64", "ldd (GNU libc) 2.36", "linux-arm64"],
    ["Darwin", "x86_64", undefined, "darwin-x64"],
    ["Darwin", "arm64", undefined, "darwin-arm64"],
  ])("detects %s %s (%s) → %s", async (s, m, ldd, target) => {
    const d = freshDir();
    const fake = fakeSystem(d, s, m, ldd);
    const r = await install(["--from", base, "--dir", join(d, "bin")], { PATH: `${fake}:${process.env.PATH}` });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`for ${target} from`);
    expect(runInstalled(join(d, "bin", "chatcli"))).toBe(`fake chatcli-${target} 0.3.0`);
  });

  test("refuses an unsupported system with the supported list", async () => {
    const d = freshDir();
    const fake = fakeSystem(d, "FreeBSD", "amd64");
    const r = await install(["--from", base, "--dir", join(d, "bin")], { PATH: `${fake}:${process.env.PATH}` });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("unsupported operating system: FreeBSD");
    expect(existsSync(join(d, "bin"))).toBe(false);
  });

  test("no build for musl arm64 is a clear error", async () => {
    const d = freshDir();
    const fake = fakeSystem(d, "Linux", "aarch64", "musl libc (aarch64)");
    const r = await install(["--from", base, "--dir", join(d, "bin")], { PATH: `${fake}:${process.env.PATH}` });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no chatcli build for linux-arm64-musl (supported: linux-x64, linux-x64-musl");
  });

  test("--version picks that release folder (with or without the v)", async () => {
    for (const v of ["0.2.0", "v0.2.0"]) {
      const dir = join(freshDir(), "bin");
      const r = await install(["--from", base, "--version", v, "--target", "linux-x64"], { CHATCLI_INSTALL_DIR: dir });
      expect(r.code).toBe(0);
      expect(runInstalled(join(dir, "chatcli"))).toBe("fake chatcli-linux-x64 0.2.0");
    }
    const r = await install(["--from", base, "--version", "9.9.9"], { CHATCLI_INSTALL_DIR: join(freshDir(), "bin") });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("has no 9.9.9/ folder");
  });

  test("--from a flat artifact folder (like dist/release)", async () => {
    const d = freshDir();
    writeRelease(join(d, "release"), "1.0.0", ["linux-x64-musl"]);
    const r = await install(["--from", join(d, "release"), "--target", "linux-x64-musl", "--dir", join(d, "bin")], {});
    expect(r.code).toBe(0);
    expect(runInstalled(join(d, "bin", "chatcli"))).toBe("fake chatcli-linux-x64-musl 1.0.0");
  });

  test("checksum mismatch is refused and an existing install stays intact", async () => {
    const d = freshDir();
    const tree = join(d, "tree");
    writeRelease(join(tree, "latest"), "0.4.0", ["linux-x64"]);
    corrupt(join(tree, "latest"), "linux-x64");
    const bin = join(d, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "chatcli"), "#!/bin/sh\necho old\n", { mode: 0o755 });
    const r = await install(["--from", tree, "--target", "linux-x64"], { CHATCLI_INSTALL_DIR: bin });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("checksum mismatch for chatcli-linux-x64: expected ");
    expect(r.stderr).toContain("nothing was installed");
    expect(runInstalled(join(bin, "chatcli"))).toBe("old");
    expect(readdirSync(bin)).toEqual(["chatcli"]);
  });

  test("an artifact missing from SHA256SUMS is refused", async () => {
    const d = freshDir();
    writeRelease(join(d, "rel"), "0.4.0", ["linux-x64"]);
    writeFileSync(join(d, "rel", "SHA256SUMS"), "");
    const r = await install(["--from", join(d, "rel"), "--target", "linux-x64", "--dir", join(d, "bin")], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("SHA256SUMS has no entry for chatcli-linux-x64");
    expect(existsSync(join(d, "bin", "chatcli"))).toBe(false);
  });

  test("replaces an existing install by rename: the old file is never written in place", async () => {
    const d = freshDir();
    const bin = join(d, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "chatcli"), "#!/bin/sh\necho old\n", { mode: 0o755 });
    // A hard link to the old inode sees any in-place write; a rename leaves it untouched.
    linkSync(join(bin, "chatcli"), join(d, "old-link"));
    const oldIno = statSync(join(bin, "chatcli")).ino;
    const r = await install(["--from", base, "--target", "linux-x64"], { CHATCLI_INSTALL_DIR: bin });
    expect(r.code).toBe(0);
    expect(runInstalled(join(bin, "chatcli"))).toBe("fake chatcli-linux-x64 0.3.0");
    expect(statSync(join(bin, "chatcli")).ino).not.toBe(oldIno);
    expect(readFileSync(join(d, "old-link"), "utf8")).toBe("#!/bin/sh\necho old\n");
    expect(readdirSync(bin)).toEqual(["chatcli"]);
  });

  test.skipIf(!hasCurl)("downloads from CHATCLI_RELEASE_URL over HTTP", async () => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        const path = decodeURIComponent(new URL(req.url).pathname);
        const file = join(base, path);
        if (path.includes("..") || !existsSync(file) || statSync(file).isDirectory()) return new Response("not found", { status: 404 });
        return new Response(Bun.file(file));
      },
    });
    try {
      const dir = join(freshDir(), "bin");
      const url = `http://127.0.0.1:${server.port}/`;
      const r = await install(["--target", "linux-x64-musl", "--version", "0.2.0"], { CHATCLI_INSTALL_DIR: dir, CHATCLI_RELEASE_URL: url });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`from http://127.0.0.1:${server.port}/0.2.0`);
      expect(runInstalled(join(dir, "chatcli"))).toBe("fake chatcli-linux-x64-musl 0.2.0");
      const missing = await install(["--target", "linux-x64", "--version", "7.0.0"], { CHATCLI_INSTALL_DIR: dir, CHATCLI_RELEASE_URL: url });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(`download failed: http://127.0.0.1:${server.port}/7.0.0/SHA256SUMS`);
      expect(runInstalled(join(dir, "chatcli"))).toBe("fake chatcli-linux-x64-musl 0.2.0");
    } finally {
      server.stop(true);
    }
  });
});
