import { expect, test } from "bun:test";
import { pathsOutsideProject } from "../../../src/tool/permission/outside-paths.ts";

const ctx = { projectRoot: "/w/proj", cwd: "/w/proj", userHome: "/home/me" };
const outside = (c: string, o = ctx) => pathsOutsideProject(c, o);

test("literal operands and redirections outside the project are named as written", () => {
  expect(outside("rm -rf /tmp/other")).toEqual(["/tmp/other"]);
  expect(outside("rm -rf ../sibling")).toEqual(["../sibling"]);
  expect(outside("rm -rf ~/stuff")).toEqual(["~/stuff"]);
  expect(outside("sudo rm -rf /var/tmp/z && ls")).toEqual(["/var/tmp/z"]);
  expect(outside("echo hi > /etc/motd")).toEqual(["/etc/motd"]);
  expect(outside("make &> /tmp/log")).toEqual(["/tmp/log"]);
  expect(outside("cp a --target-directory=/opt/x")).toEqual(["--target-directory=/opt/x"]);
  expect(outside("rm -rf ..")).toEqual([".."]);
});

test("inside the project, unknown at run time, or not worth saying: nothing", () => {
  for (const c of ["rm -rf build", "rm -rf src/x ./y /w/proj/dist", 'rm -rf "$DIR"', "rm -rf $(mktemp -d)", "ls 2>&1", "make > /dev/null 2>&1", "rm -rf 'unterminated"]) {
    expect(outside(c)).toEqual([]);
  }
});

test("relative paths are read from the command's working directory", () => {
  expect(outside("rm -rf ../x", { ...ctx, cwd: "/w/proj/sub" })).toEqual([]);
  expect(outside("rm -rf ./x", { ...ctx, cwd: "/w" })).toEqual(["./x"]);
});
