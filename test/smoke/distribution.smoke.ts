// Issue 11 with the real compiled binary as the release artifact: install.sh (under dash) from a local
// artifact folder, the npm launcher running the platform package's binary, and `chatcli update` against a
// 127.0.0.1 release server when the release is the same version or its download is corrupted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { buildNpmPackages } from "../../scripts/npm-packages.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";

const SH = Bun.which("dash") ?? "sh";
const NODE = Bun.which("node");
const INSTALL_SH = join(import.meta.dir, "../../scripts/install.sh");
const musl = process.platform === "linux" && existsSync("/lib") && readdirSync("/lib").some((f) => f.startsWith("ld-musl-"));
const target = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}${musl ? "-musl" : ""}`;
const file = `chatcli-${target}`;

let b: BinaryEnv;
let fake: FakeOllama;
let release: string;
let sha: string;

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192 }], defaultReply: { text: "Installed answer.", chunkCount: 2 } });
  // A release folder as `npm run release` writes it, holding the binary under test.
  release = join(b.dir, "release");
  mkdirSync(release, { recursive: true });
  copyFileSync(b.bin, join(release, file));
  sha = createHash("sha256").update(readFileSync(b.bin)).digest("hex");
  writeFileSync(join(release, "SHA256SUMS"), `${sha}  ${file}\n`);
  const size = readFileSync(b.bin).length;
  writeFileSync(join(release, "manifest.json"), JSON.stringify({ version: pkg.version, commit: "test", artifacts: [{ version: pkg.version, target, file, size, sha256: sha }], skipped: [] }));
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

async function spawn(cmd: string[], env: Record<string, string>) {
  const p = Bun.spawn(cmd, { cwd: b.dir, env: { ...b.env, ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

describe("distribution with the real binary", () => {
  test("install.sh --from installs it; the installed chatcli runs from there", async () => {
    const dir = join(b.dir, "inst-bin");
    const r = await spawn([SH, INSTALL_SH, "--from", release], { CHATCLI_INSTALL_DIR: dir, SHELL: "/bin/sh" });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`installed ${pkg.version}`);
    expect(r.stdout).toContain("not on your PATH");
    const v = await spawn([join(dir, "chatcli"), "--version"], {});
    expect(v.stdout).toStartWith(`${pkg.version} (`);
    const a = await spawn([join(dir, "chatcli"), "-p", "hi", "--model", "qwen3:8b"], { OLLAMA_HOST: fake.url });
    expect(a.stdout).toBe("Installed answer.\n");
  });

  test.skipIf(!NODE)("the npm launcher runs the platform package's binary with our arguments and exit status", async () => {
    const out = join(b.dir, "npm-out");
    buildNpmPackages({ from: release, out });
    // The layout `npm install -g chatcli` leaves: the wrapper and the one platform package npm selected.
    const nm = join(b.dir, "npm-prefix", "node_modules");
    mkdirSync(join(nm, "@chatcli"), { recursive: true });
    cpSync(join(out, "chatcli"), join(nm, "chatcli"), { recursive: true });
    cpSync(join(out, target), join(nm, "@chatcli", target), { recursive: true });
    const launcher = join(nm, "chatcli", "bin", "chatcli");
    const v = await spawn([NODE!, launcher, "--version"], {});
    expect(v.code).toBe(0);
    expect(v.stdout).toStartWith(`${pkg.version} (`);
    const bad = await spawn([NODE!, launcher, "--no-such-flag"], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Unknown argument: no-such-flag");
    const a = await spawn([NODE!, launcher, "-p", "hi", "--model", "qwen3:8b"], { OLLAMA_HOST: fake.url });
    expect(a.stdout).toBe("Installed answer.\n");
    const odd = await spawn([NODE!, launcher, "--version"], { CHATCLI_NPM_ARCH: "mips" });
    expect(odd.code).toBe(1);
    expect(odd.stderr).toContain("mips");
    expect(odd.stderr).toContain(target);
  });

  test("chatcli update: same version changes nothing; a corrupted download is refused and leaves the binary intact", async () => {
    const good = `#!/bin/sh\necho updated\n`;
    const goodSha = createHash("sha256").update(good).digest("hex");
    let mode: "same" | "corrupt" = "same";
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        const path = new URL(req.url).pathname;
        const version = mode === "same" ? pkg.version : "99.0.0";
        if (path === "/latest/manifest.json") return Response.json({ version, commit: "c", artifacts: [{ version, target, file, size: good.length, sha256: goodSha }] });
        if (path === "/latest/SHA256SUMS") return new Response(`${goodSha}  ${file}\n`);
        if (path === `/latest/${file}`) return new Response(`${good}# tampered\n`);
        return new Response("not found", { status: 404 });
      },
    });
    try {
      const env = { CHATCLI_RELEASE_URL: `http://127.0.0.1:${server.port}` };
      const before = readFileSync(b.bin);
      const entriesBefore = readdirSync(join(b.bin, "..")).sort();
      const same = await run(b, ["update"], env);
      expect(same.code).toBe(0);
      expect(same.stdout).toContain("up to date");
      expect(readFileSync(b.bin).equals(before)).toBe(true);

      mode = "corrupt";
      const bad = await run(b, ["update"], env);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("checksum mismatch");
      expect(bad.stderr).not.toMatch(/^\s+at /m);
      expect(readFileSync(b.bin).equals(before)).toBe(true);
      expect(readdirSync(join(b.bin, "..")).sort()).toEqual(entriesBefore); // no temp file left next to it
      const v = await run(b, ["--version"]);
      expect(v.stdout).toStartWith(`${pkg.version} (`);
    } finally {
      server.stop(true);
    }
  });
});
