/**
 * Real git, real repositories: a `.git/config` that names an fsmonitor program and a post-index-change hook runs
 * both on a plain `git status`; the hardening environment stops both, for chatcli's own git calls (gitView,
 * headContent) and for the vetted read-only git calls the exec tool runs. A line a person approved is run as written.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gitView, headContent } from "../../src/agent/checkpoints/git-head.ts";
import { execTool } from "../../src/tool/builtin/exec.ts";
import { gitHardeningFor, isVettedReadOnlyGit } from "../../src/tool/permission/git-exec-env.ts";
import { gitHardeningEnv } from "../../src/util/git-hardening.ts";
import { makeCtx } from "../tool/builtin/support.ts";

let dir: string;
const baseEnv = () => ({ PATH: process.env.PATH ?? "", HOME: dir, GIT_CONFIG_NOSYSTEM: "1" });
const git = (args: string[], env: Record<string, string> = baseEnv()) => spawnSync("git", args, { cwd: dir, env, encoding: "utf8" });
const canaries = () => ["FSM", "HOOK"].filter((c) => existsSync(join(dir, c)));

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "chatcli-git-harden-")));
  writeFileSync(join(dir, "f"), "one\n");
  git(["init", "-q"]);
  git(["add", "f"]);
  git(["-c", "user.email=a@b", "-c", "user.name=n", "commit", "-qm", "x"]);
  // What a model that may write .git/config (or a crafted repository) plants.
  git(["config", "core.fsmonitor", `touch ${join(dir, "FSM")}; false`]);
  mkdirSync(join(dir, ".git", "hooks"), { recursive: true });
  writeFileSync(join(dir, ".git", "hooks", "post-index-change"), `#!/bin/sh\ntouch ${join(dir, "HOOK")}\n`);
  chmodSync(join(dir, ".git", "hooks", "post-index-change"), 0o755);
  writeFileSync(join(dir, "f"), "two\n");
  utimesSync(join(dir, "f"), new Date(2000, 0, 1), new Date(2000, 0, 1));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("git hardening", () => {
  test("without it, a plain git status runs the repository's fsmonitor and hook (the attack is real)", () => {
    expect(git(["status", "--short"]).status).toBe(0);
    expect(canaries()).toEqual(["FSM", "HOOK"]);
  });

  test("with it, git status runs neither and still reports the change", () => {
    const r = git(["status", "--short"], { ...baseEnv(), ...gitHardeningEnv() });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(" M f");
    expect(canaries()).toEqual([]);
  });

  test("chatcli's own git calls (gitView, headContent) run hardened", async () => {
    expect((await gitView(dir))?.dirty.has("f")).toBe(true);
    expect(new TextDecoder().decode(await headContent(dir, join(dir, "f")))).toBe("one\n");
    expect(canaries()).toEqual([]);
  });

  test("an embedded bare repository is not used implicitly", () => {
    git(["init", "-q", "--bare", "inner.git"]);
    const plain = spawnSync("git", ["rev-parse", "--git-dir"], { cwd: join(dir, "inner.git"), env: baseEnv(), encoding: "utf8" });
    expect(plain.status).toBe(0);
    const hardened = spawnSync("git", ["rev-parse", "--git-dir"], { cwd: join(dir, "inner.git"), env: { ...baseEnv(), ...gitHardeningEnv() }, encoding: "utf8" });
    expect(hardened.status).not.toBe(0);
    expect(hardened.stderr).toContain("safe.bareRepository");
  });

  test("the exec tool hardens a vetted read-only git call", async () => {
    const out = await execTool.run({ command: "git status --short" }, makeCtx(dir, { env: baseEnv() }));
    expect(out.text).toContain(" M f");
    expect(canaries()).toEqual([]);
  });

  test("a git line a person approved runs as written (hooks included)", async () => {
    expect(isVettedReadOnlyGit("git status --short && true")).toBe(false);
    await execTool.run({ command: "git status --short && true" }, makeCtx(dir, { env: baseEnv() }));
    expect(canaries()).toEqual(["FSM", "HOOK"]);
  });

  test("the predicate: vetted read-only git lines only", () => {
    for (const c of ["git status", "git diff HEAD~1 -- src", "git log --oneline -5 | head -n 2", "git -C sub show HEAD"]) {
      expect(isVettedReadOnlyGit(c)).toBe(true);
      expect(gitHardeningFor(c)?.GIT_CONFIG_NOSYSTEM).toBe("1");
    }
    for (const c of ["ls -la", "git commit -m x", "git -c core.pager=x log", "git fetch", "git status; ls", "git grep -Ox foo", "git log $U"]) {
      expect(isVettedReadOnlyGit(c)).toBe(false);
      expect(gitHardeningFor(c)).toBeUndefined();
    }
  });

  test("settings the environment already passes are kept, ours come after them and win", () => {
    const base = { ...baseEnv(), GIT_CONFIG_COUNT: "2", GIT_CONFIG_KEY_0: "user.name", GIT_CONFIG_VALUE_0: "Kept", GIT_CONFIG_KEY_1: "core.fsmonitor", GIT_CONFIG_VALUE_1: `touch ${join(dir, "FSM")}` };
    const env = { ...base, ...gitHardeningEnv(base) };
    expect(env.GIT_CONFIG_COUNT).toBe(String(2 + Number(gitHardeningEnv().GIT_CONFIG_COUNT)));
    expect(git(["config", "user.name"], env).stdout.trim()).toBe("Kept");
    expect(git(["status", "--short"], env).status).toBe(0);
    expect(canaries()).toEqual([]);
  });

  test("the env lists every key/value pair it counts", () => {
    const env = gitHardeningEnv();
    const n = Number(env.GIT_CONFIG_COUNT);
    const pairs = Array.from({ length: n }, (_, i) => `${env[`GIT_CONFIG_KEY_${i}`]}=${env[`GIT_CONFIG_VALUE_${i}`]}`);
    expect(pairs).toContain("core.fsmonitor=false");
    expect(pairs).toContain("core.hooksPath=/dev/null");
    expect(pairs).toContain("safe.bareRepository=explicit");
    expect(env.GIT_CONFIG_NOSYSTEM).toBe("1");
  });
});
