/**
 * scripts/npm-packages.ts builds the wrapper + per-platform packages from release artifacts; the launcher
 * (npm/bin/chatcli, run by the real `node`) picks the matching package from a node_modules layout.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildNpmPackages } from "../../scripts/npm-packages.ts";
import { corrupt, writeRelease } from "./fake-release.ts";

const NODE = Bun.which("node");
const BUILT = ["linux-x64", "linux-x64-musl", "darwin-arm64"];

let tmp: string;
let out: string;
let prefix: string;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "chatcli-npm-"));
  writeRelease(join(tmp, "release"), "1.2.3", BUILT);
  out = join(tmp, "npm");
  buildNpmPackages({ from: join(tmp, "release"), out });
  // What `npm install -g chatcli` leaves on linux: the wrapper plus the platform packages npm chose.
  prefix = join(tmp, "prefix");
  const nm = join(prefix, "node_modules");
  mkdirSync(join(nm, "@chatcli"), { recursive: true });
  cpSync(join(out, "chatcli"), join(nm, "chatcli"), { recursive: true });
  cpSync(join(out, "linux-x64"), join(nm, "@chatcli", "linux-x64"), { recursive: true });
  cpSync(join(out, "linux-x64-musl"), join(nm, "@chatcli", "linux-x64-musl"), { recursive: true });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const json = (p: string) => JSON.parse(readFileSync(p, "utf8")) as Record<string, unknown>;

describe("npm-packages", () => {
  test("one package per built target with os/cpu/libc, and a wrapper depending on exactly those", () => {
    expect(json(join(out, "linux-x64", "package.json"))).toMatchObject({ name: "@chatcli/linux-x64", version: "1.2.3", os: ["linux"], cpu: ["x64"], libc: ["glibc"] });
    expect(json(join(out, "linux-x64-musl", "package.json"))).toMatchObject({ name: "@chatcli/linux-x64-musl", os: ["linux"], cpu: ["x64"], libc: ["musl"] });
    const darwin = json(join(out, "darwin-arm64", "package.json"));
    expect(darwin).toMatchObject({ name: "@chatcli/darwin-arm64", os: ["darwin"], cpu: ["arm64"] });
    expect(darwin.libc).toBeUndefined();
    expect(statSync(join(out, "linux-x64", "bin", "chatcli")).mode & 0o111).toBe(0o111);
    const wrapper = json(join(out, "chatcli", "package.json"));
    expect(wrapper).toMatchObject({ name: "chatcli", version: "1.2.3", bin: { chatcli: "bin/chatcli" } });
    expect(wrapper.optionalDependencies).toEqual({ "@chatcli/linux-x64": "1.2.3", "@chatcli/linux-x64-musl": "1.2.3", "@chatcli/darwin-arm64": "1.2.3" });
  });

  test("refuses an artifact whose checksum does not match", () => {
    const rel = join(tmp, "bad");
    writeRelease(rel, "1.2.3", ["linux-x64"]);
    corrupt(rel, "linux-x64");
    expect(() => buildNpmPackages({ from: rel, out: join(tmp, "bad-out") })).toThrow(/sha256 .* does not match/);
  });
});

describe.skipIf(!NODE)("npm launcher", () => {
  async function launch(env: Record<string, string>, args: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
    const proc = Bun.spawn([NODE!, join(prefix, "node_modules", "chatcli", "bin", "chatcli"), ...args], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, stdout, stderr };
  }

  test("runs the glibc or musl package's binary with the arguments and its exit status", async () => {
    const glibc = await launch({ CHATCLI_NPM_PLATFORM: "linux", CHATCLI_NPM_ARCH: "x64", CHATCLI_NPM_LIBC: "glibc" }, ["-p", "hi there"]);
    expect(glibc).toEqual({ code: 0, stdout: "fake chatcli-linux-x64 1.2.3 -p hi there\n", stderr: "" });
    const musl = await launch({ CHATCLI_NPM_PLATFORM: "linux", CHATCLI_NPM_ARCH: "x64", CHATCLI_NPM_LIBC: "musl", FAKE_EXIT: "7" }, ["--version"]);
    expect(musl).toEqual({ code: 7, stdout: "fake chatcli-linux-x64-musl 1.2.3 --version\n", stderr: "" });
  });

  test("detects this machine when nothing is overridden", async () => {
    if (process.platform !== "linux" || process.arch !== "x64") return;
    const r = await launch({});
    expect(r.stdout).toMatch(/^fake chatcli-linux-x64(-musl)? 1\.2\.3/);
  });

  test("an unsupported platform names it, lists the supported ones and suggests install.sh", async () => {
    for (const [os, cpu, label] of [
      ["freebsd", "x64", "freebsd-x64"],
      ["linux", "arm64", "linux-arm64 (glibc)"], // known, but not built for this release
    ] as const) {
      const r = await launch({ CHATCLI_NPM_PLATFORM: os, CHATCLI_NPM_ARCH: cpu, CHATCLI_NPM_LIBC: "glibc" });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(`chatcli: no prebuilt chatcli binary for ${label}.`);
      expect(r.stderr).toContain("Supported platforms: linux-x64, linux-x64-musl, darwin-arm64.");
      expect(r.stderr).toContain("install.sh | sh");
    }
  });

  test("a supported platform whose optional package npm skipped says how to reinstall", async () => {
    const r = await launch({ CHATCLI_NPM_PLATFORM: "darwin", CHATCLI_NPM_ARCH: "arm64" });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("the platform package @chatcli/darwin-arm64 for darwin-arm64 is not installed");
    expect(r.stderr).toContain("npm install -g chatcli@1.2.3 --include=optional");
  });
});
