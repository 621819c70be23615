/** `chatcli update` against a fake release server on 127.0.0.1, replacing a copy of a fake "binary". */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "../../src/cli/args.ts";
import { compareVersions, DEFAULT_RELEASE_URL, releaseFolderUrl, updateCommand, type UpdateOptions } from "../../src/cli/commands/update.ts";
import { fakeBinary, sha256, writeReleaseTree } from "./fake-release.ts";

let base: string;
let scratch: string;
let server: ReturnType<typeof Bun.serve>;
let url: string;
/** Paths requested since the last reset. */
let requests: string[] = [];
/** Per-path replacement bodies (a corrupted or inconsistent release). */
let overrides = new Map<string, string>();

beforeAll(() => {
  base = writeReleaseTree(["0.1.0", "0.2.0"]);
  scratch = mkdtempSync(join(tmpdir(), "chatcli-update-"));
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = decodeURIComponent(new URL(req.url).pathname);
      requests.push(path);
      const o = overrides.get(path);
      if (o !== undefined) return new Response(o);
      const file = join(base, path);
      if (path.includes("..") || !existsSync(file) || statSync(file).isDirectory()) return new Response("not found", { status: 404 });
      return new Response(Bun.file(file));
    },
  });
  url = `http://127.0.0.1:${server.port}`;
});
afterAll(() => {
  server.stop(true);
  rmSync(base, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  requests = [];
  overrides = new Map();
});

let n = 0;
/** A fake installed binary of `version` in its own directory. */
function installed(version: string, target = "linux-x64"): string {
  const dir = join(scratch, `bin-${++n}`);
  mkdirSync(dir);
  const exe = join(dir, "chatcli");
  writeFileSync(exe, fakeBinary(target, version), { mode: 0o755 });
  return exe;
}

function runExe(exe: string): string {
  return Bun.spawnSync([exe], { stdout: "pipe" }).stdout.toString().trim();
}

async function update(o: Partial<UpdateOptions> & { execPath: string; currentVersion: string }): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await updateCommand({
    env: { CHATCLI_RELEASE_URL: url },
    check: false,
    fetch,
    target: "linux-x64",
    out: { write: (s: string) => (out += s) },
    err: { write: (s: string) => (err += s) },
    ...o,
  });
  return { code, out, err };
}

describe("chatcli update", () => {
  test("newer release: downloads, verifies and atomically replaces the executable", async () => {
    const exe = installed("0.1.0");
    const ino = statSync(exe).ino;
    const r = await update({ execPath: exe, currentVersion: "0.1.0" });
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("Updated chatcli 0.1.0 → 0.2.0");
    expect(runExe(exe)).toBe("fake chatcli-linux-x64 0.2.0");
    expect(statSync(exe).mode & 0o777).toBe(0o755);
    expect(statSync(exe).ino).not.toBe(ino);
    expect(readdirSync(join(exe, ".."))).toEqual(["chatcli"]);
    expect(requests).toEqual(["/latest/manifest.json", "/latest/SHA256SUMS", "/latest/chatcli-linux-x64"]);
  });

  test("the artifact of this executable's own target is the one installed (musl)", async () => {
    const exe = installed("0.1.0", "linux-x64-musl");
    const r = await update({ execPath: exe, currentVersion: "0.1.0", target: "linux-x64-musl" });
    expect(r.code).toBe(0);
    expect(runExe(exe)).toBe("fake chatcli-linux-x64-musl 0.2.0");
  });

  test("same version: says so and changes nothing", async () => {
    const exe = installed("0.2.0");
    const before = readFileSync(exe, "utf8");
    const r = await update({ execPath: exe, currentVersion: "0.2.0" });
    expect(r.code).toBe(0);
    expect(r.out).toBe("chatcli 0.2.0 is up to date (latest release: 0.2.0).\n");
    expect(readFileSync(exe, "utf8")).toBe(before);
    expect(requests).toEqual(["/latest/manifest.json"]);
  });

  test("a build newer than the latest release is up to date too", async () => {
    const exe = installed("0.3.0-rc.1");
    const r = await update({ execPath: exe, currentVersion: "0.3.0-rc.1" });
    expect(r.code).toBe(0);
    expect(r.out).toContain("is up to date");
  });

  test("--check only reports a newer version", async () => {
    const exe = installed("0.1.0");
    const r = await update({ execPath: exe, currentVersion: "0.1.0", check: true });
    expect(r.code).toBe(0);
    expect(r.out).toBe("A newer version is available: 0.2.0 (you have 0.1.0). Run `chatcli update` to install it.\n");
    expect(runExe(exe)).toBe("fake chatcli-linux-x64 0.1.0");
    expect(requests).toEqual(["/latest/manifest.json"]);
  });

  test("corrupted download: refused, old binary intact, no temp file left", async () => {
    const exe = installed("0.1.0");
    overrides.set("/latest/chatcli-linux-x64", fakeBinary("linux-x64", "6.6.6"));
    const r = await update({ execPath: exe, currentVersion: "0.1.0" });
    expect(r.code).toBe(1);
    expect(r.err).toContain("chatcli update: checksum mismatch for chatcli-linux-x64: expected ");
    expect(r.err).toContain(`got ${sha256(fakeBinary("linux-x64", "6.6.6"))}`);
    expect(r.err).toContain("nothing was replaced");
    expect(r.out).not.toContain("Updated");
    expect(runExe(exe)).toBe("fake chatcli-linux-x64 0.1.0");
    expect(readdirSync(join(exe, ".."))).toEqual(["chatcli"]);
  });

  test("SHA256SUMS that disagrees with the manifest is refused before downloading", async () => {
    const exe = installed("0.1.0");
    overrides.set("/latest/SHA256SUMS", `${"0".repeat(64)}  chatcli-linux-x64\n`);
    const r = await update({ execPath: exe, currentVersion: "0.1.0" });
    expect(r.code).toBe(1);
    expect(r.err).toContain("SHA256SUMS and manifest.json of release 0.2.0 disagree about chatcli-linux-x64");
    expect(requests).not.toContain("/latest/chatcli-linux-x64");
    expect(runExe(exe)).toBe("fake chatcli-linux-x64 0.1.0");
  });

  test("a manifest that is not one is reported", async () => {
    const exe = installed("0.1.0");
    overrides.set("/latest/manifest.json", `{"hello": 1}`);
    const r = await update({ execPath: exe, currentVersion: "0.1.0" });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${url}/latest/manifest.json is not a chatcli release manifest`);
  });

  test("network error is reported and nothing is touched", async () => {
    const exe = installed("0.1.0");
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = closed.port;
    closed.stop(true);
    const r = await update({ execPath: exe, currentVersion: "0.1.0", env: { CHATCLI_RELEASE_URL: `http://127.0.0.1:${port}/` } });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`chatcli update: network error: could not reach http://127.0.0.1:${port}/latest/manifest.json`);
    expect(runExe(exe)).toBe("fake chatcli-linux-x64 0.1.0");
  });

  test("--version installs that version (even an older one) from its folder", async () => {
    const exe = installed("0.2.0");
    const r = await update({ execPath: exe, currentVersion: "0.2.0", version: "v0.1.0" });
    expect(r.code).toBe(0);
    expect(runExe(exe)).toBe("fake chatcli-linux-x64 0.1.0");
    expect(requests[0]).toBe("/0.1.0/manifest.json");
    const same = await update({ execPath: exe, currentVersion: "0.1.0", version: "0.1.0" });
    expect(same.out).toBe("chatcli 0.1.0 is already installed; nothing to do.\n");
    const missing = await update({ execPath: exe, currentVersion: "0.1.0", version: "9.9.9" });
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("version 9.9.9 was not found");
  });

  test("running from source: explains how to update instead of replacing bun", async () => {
    const exe = installed("0.1.0");
    const r = await update({ execPath: exe, currentVersion: "0.1.0", target: null });
    expect(r.code).toBe(1);
    expect(r.err).toContain("running from source");
    expect(r.err).toContain("git pull");
    expect(runExe(exe)).toBe("fake chatcli-linux-x64 0.1.0");
    const check = await update({ execPath: exe, currentVersion: "0.1.0", target: null, check: true });
    expect(check.code).toBe(0);
    expect(check.out).toContain("A newer version is available: 0.2.0");
  });

  test("an npm-installed binary is left to npm", async () => {
    const dir = join(scratch, "prefix", "node_modules", "@chatcli", "linux-x64", "bin");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "chatcli"), fakeBinary("linux-x64", "0.1.0"), { mode: 0o755 });
    const r = await update({ execPath: join(dir, "chatcli"), currentVersion: "0.1.0" });
    expect(r.code).toBe(1);
    expect(r.err).toContain("npm install -g chatcli@0.2.0");
    expect(runExe(join(dir, "chatcli"))).toBe("fake chatcli-linux-x64 0.1.0");
  });

  test("a target the release does not have is named", async () => {
    const exe = installed("0.1.0");
    const r = await update({ execPath: exe, currentVersion: "0.1.0", target: "linux-riscv64" });
    expect(r.code).toBe(1);
    expect(r.err).toContain("release 0.2.0 has no build for linux-riscv64 (it has: linux-x64, linux-x64-musl");
  });
});

describe("release URLs and versions", () => {
  test("CHATCLI_RELEASE_URL folders, and GitHub's layout by default", () => {
    expect(releaseFolderUrl({ CHATCLI_RELEASE_URL: "https://m.example/chatcli/" })).toBe("https://m.example/chatcli/latest");
    expect(releaseFolderUrl({ CHATCLI_RELEASE_URL: "https://m.example/chatcli" }, "v1.2.3")).toBe("https://m.example/chatcli/1.2.3");
    expect(releaseFolderUrl({})).toBe(`${DEFAULT_RELEASE_URL}/latest/download`);
    expect(releaseFolderUrl({ CHATCLI_RELEASE_URL: "" }, "1.2.3")).toBe(`${DEFAULT_RELEASE_URL}/download/v1.2.3`);
  });

  test("semver order", () => {
    const sorted = ["0.9.0", "0.10.0-alpha", "0.10.0-alpha.1", "0.10.0-alpha.beta", "0.10.0-beta.2", "0.10.0-beta.11", "0.10.0-rc.1", "0.10.0", "v0.10.1", "1.0.0+build.5"];
    for (let i = 0; i < sorted.length; i++) {
      for (let j = 0; j < sorted.length; j++) expect([sorted[i], sorted[j], compareVersions(sorted[i]!, sorted[j]!)]).toEqual([sorted[i], sorted[j], Math.sign(i - j)]);
    }
    expect(compareVersions("1.0.0", "1.0.0+other")).toBe(0);
  });
});

test("`chatcli update --version X` reaches the command (not shadowed by the global --version)", () => {
  expect(parseArgs(["update", "--version", "1.2.3"], "0.1.0 (x)")).toMatchObject({ kind: "update", check: false, version: "1.2.3" });
  expect(parseArgs(["update", "--check"], "0.1.0 (x)")).toMatchObject({ kind: "update", check: true });
});
