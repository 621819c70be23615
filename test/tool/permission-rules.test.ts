import { describe, expect, test } from "bun:test";
import { expandBraces } from "../../src/tool/permission/command-view.ts";
import { isCriticalPath, isDevicePath, isSensitivePath } from "../../src/tool/permission/paths.ts";
import { matchExecPattern, matchPathPattern, normalizePattern, parsePattern } from "../../src/tool/permission/rule-match.ts";

describe("patterns", () => {
  test("normalization and the seed prefix", () => {
    expect(normalizePattern("  exec   git  status ")).toBe("exec git status");
    expect(parsePattern("@coder read")).toEqual({ text: "read", tool: "read" });
    expect(parsePattern("write src/**")).toEqual({ text: "write src/**", tool: "write", arg: "src/**" });
  });

  test("exec: word-boundary prefix, *, quoting", () => {
    expect(matchExecPattern("git status", ["git", "status"])).toBe(true);
    expect(matchExecPattern("git status", ["git", "status", "-s"])).toBe(true);
    expect(matchExecPattern("git status", ["git", "statusx"])).toBe(false);
    expect(matchExecPattern("git", ["gitk"])).toBe(false);
    expect(matchExecPattern("npm test*", ["npm", "test:e2e"])).toBe(true);
    expect(matchExecPattern("npm * --dry-run", ["npm", "publish", "--dry-run"])).toBe(true);
    expect(matchExecPattern("npm * --dry-run", ["npm", "publish"])).toBe(false);
    expect(matchExecPattern(`echo "a  b"`, ["echo", "a  b"])).toBe(true);
    expect(matchExecPattern("a.b", ["axb"])).toBe(false);
  });

  test("paths: project-relative globs, directories, basenames, absolute and ~ patterns", () => {
    const root = "/p";
    expect(matchPathPattern("src/**", "/p/src/a/b.ts", root)).toBe(true);
    expect(matchPathPattern("src/*.ts", "/p/src/a/b.ts", root)).toBe(false);
    expect(matchPathPattern("src/*.ts", "/p/src/b.ts", root)).toBe(true);
    expect(matchPathPattern("**/*.test.ts", "/p/test/x/a.test.ts", root)).toBe(true);
    expect(matchPathPattern("**/*.test.ts", "/p/a.test.ts", root)).toBe(true);
    expect(matchPathPattern("docs", "/p/docs/a/b.md", root)).toBe(true);
    expect(matchPathPattern("docs/", "/p/docs/a.md", root)).toBe(true);
    expect(matchPathPattern("docs", "/p/docsx/a.md", root)).toBe(false);
    expect(matchPathPattern("*.md", "/p/deep/x/README.md", root)).toBe(true);
    expect(matchPathPattern("./a.txt", "/p/a.txt", root)).toBe(true);
    expect(matchPathPattern("/tmp/**", "/tmp/x/y", root)).toBe(true);
    expect(matchPathPattern("src/**", "/other/src/a.ts", root)).toBe(false);
    expect(matchPathPattern("~/notes/*", "/home/u/notes/a.md", root, "/home/u")).toBe(true);
  });
});

describe("path classes", () => {
  test("critical paths", () => {
    for (const p of ["/", "//", "/*", "/.", "/etc", "/usr/", "/var/*", "~", "~/", "~/*", "$HOME", "${HOME}/", "/home/bob", "/Users/bob/", "/b*", "/home/me/*"]) {
      expect([p, isCriticalPath(p, "/home/me")]).toEqual([p, true]);
    }
    for (const p of ["/tmp", "/tmp/x", "./", ".", "*", "build", "~/projects/x", "/home/bob/src", "/usr/local/lib/node_modules/x", ""]) {
      expect([p, isCriticalPath(p, "/home/me")]).toEqual([p, false]);
    }
  });

  test("devices and sensitive paths", () => {
    expect(isDevicePath("/dev/sda")).toBe(true);
    expect(isDevicePath("/dev/null")).toBe(false);
    expect(isDevicePath("/dev/fd/1")).toBe(false);
    expect(isSensitivePath("/home/u/.ssh/id_rsa")).toBe(".ssh");
    expect(isSensitivePath("--identity=~/.ssh/k")).toBe(".ssh");
    expect(isSensitivePath("host:.aws/credentials")).toBe(".aws");
    expect(isSensitivePath("/home/u/.config/gcloud/x")).toBe(".config/gcloud");
    expect(isSensitivePath("src/ssh/client.ts")).toBeUndefined();
  });

  test("brace expansion", () => {
    expect(expandBraces("/{bin,etc}", 0)).toEqual(["/bin", "/etc"]);
    expect(expandBraces("a{b,c{d,e}}f", 0)).toEqual(["abf", "acdf", "acef"]);
    expect(expandBraces("{x}", 0)).toEqual(["{x}"]);
    expect(expandBraces("${HOME}", 0)).toEqual(["${HOME}"]);
  });
});
