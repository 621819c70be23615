import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import path from "node:path";
import { createPathPolicy, PathError, parseExtraPaths } from "../../src/tool/workspace.ts";
import { type TempProject, tempProject } from "./builtin/support.ts";

let proj: TempProject;
let outside: TempProject;
beforeEach(() => {
  proj = tempProject("chatcli-ws-proj-");
  outside = tempProject("chatcli-ws-out-");
});
afterEach(() => {
  proj.cleanup();
  outside.cleanup();
});

function refusal(fn: () => unknown): PathError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PathError) return err;
    throw err;
  }
  throw new Error("expected a PathError");
}

describe("createPathPolicy", () => {
  test("relative paths resolve against the project root, also for files that do not exist yet", () => {
    proj.file("src/a.ts", "x");
    const policy = createPathPolicy({ projectRoot: proj.root, extraReadPaths: [] });
    expect(policy.resolveRead("src/a.ts")).toBe(path.join(proj.root, "src/a.ts"));
    expect(policy.resolveWrite("new/dir/b.ts")).toBe(path.join(proj.root, "new/dir/b.ts"));
    expect(policy.resolveRead(".")).toBe(proj.root);
  });

  test("a path outside the project is refused with a hint naming CHATCLI_AGENT_EXTRA_READ_PATHS", () => {
    outside.file("secret.txt", "s");
    const policy = createPathPolicy({ projectRoot: proj.root, extraReadPaths: [] });
    const err = refusal(() => policy.resolveRead(path.join(outside.root, "secret.txt")));
    expect(err.code).toBe("outside_project");
    expect(err.message).toContain(path.join(outside.root, "secret.txt"));
    expect(err.message).toContain("CHATCLI_AGENT_EXTRA_READ_PATHS");
    expect(refusal(() => policy.resolveWrite("../elsewhere.txt")).code).toBe("outside_project");
  });

  test("a prefix-sharing sibling directory is not inside the root", () => {
    const policy = createPathPolicy({ projectRoot: proj.root, extraReadPaths: [] });
    expect(refusal(() => policy.resolveRead(`${proj.root}-other/x`)).code).toBe("outside_project");
  });

  test("symlink escapes are refused, for existing and for new files under the link", () => {
    outside.file("target.txt", "t");
    symlinkSync(path.join(outside.root, "target.txt"), path.join(proj.root, "link.txt"));
    symlinkSync(outside.root, path.join(proj.root, "linkdir"));
    const policy = createPathPolicy({ projectRoot: proj.root, extraReadPaths: [] });
    const e1 = refusal(() => policy.resolveRead("link.txt"));
    expect(e1.code).toBe("outside_project");
    expect(e1.message).toContain("symlink");
    expect(refusal(() => policy.resolveWrite("linkdir/new-file.txt")).code).toBe("outside_project");
    expect(refusal(() => policy.resolveRead("linkdir/target.txt")).code).toBe("outside_project");
  });

  test("a symlink pointing inside the project is fine", () => {
    proj.file("real/x.txt", "x");
    symlinkSync(path.join(proj.root, "real"), path.join(proj.root, "alias"));
    const policy = createPathPolicy({ projectRoot: proj.root, extraReadPaths: [] });
    expect(policy.resolveRead("alias/x.txt")).toBe(path.join(proj.root, "real/x.txt"));
  });

  test("system paths are refused with system_path", () => {
    const policy = createPathPolicy({ projectRoot: proj.root, extraReadPaths: [] });
    for (const p of ["/etc/passwd", "/proc/self/environ", "/sys/kernel", "/dev/sda", "/boot/x", "/root/.ssh/id_rsa"]) {
      const err = refusal(() => policy.resolveRead(p));
      expect(err.code).toBe("system_path");
      expect(err.path).toBe(p);
    }
  });

  test("system paths stay refused even when an allowed root contains them", () => {
    const policy = createPathPolicy({ projectRoot: proj.root, extraReadPaths: ["/"] });
    expect(refusal(() => policy.resolveRead("/etc/hostname")).code).toBe("system_path");
  });

  test("a project kept under a system directory is still usable", () => {
    const policy = createPathPolicy({ projectRoot: "/root/chatcli-no-such-project", extraReadPaths: [] });
    expect(policy.resolveWrite("src/a.ts")).toBe("/root/chatcli-no-such-project/src/a.ts");
    expect(refusal(() => policy.resolveRead("/root/other")).code).toBe("system_path");
  });

  test("extra read paths allow reading but not writing; addReadPath/addWritePath extend the roots", () => {
    outside.file("notes.md", "n");
    const policy = createPathPolicy({ projectRoot: proj.root, extraReadPaths: [outside.root] });
    const notes = path.join(outside.root, "notes.md");
    expect(policy.resolveRead(notes)).toBe(notes);
    expect(refusal(() => policy.resolveWrite(notes)).code).toBe("outside_project");
    policy.addWritePath(outside.root);
    expect(policy.resolveWrite(notes)).toBe(notes);

    const other = tempProject("chatcli-ws-extra-");
    try {
      const p2 = createPathPolicy({ projectRoot: proj.root, extraReadPaths: [] });
      expect(refusal(() => p2.resolveRead(other.root)).code).toBe("outside_project");
      p2.addReadPath(other.root);
      expect(p2.resolveRead(other.root)).toBe(other.root);
      expect(p2.roots?.().read).toContain(other.root);
    } finally {
      other.cleanup();
    }
  });

  test("Windows rules: system roots refused case-insensitively, project paths allowed", () => {
    const policy = createPathPolicy({ projectRoot: "C:\\work\\proj", extraReadPaths: [], platform: "win32" });
    expect(policy.resolveRead("src\\a.ts")).toBe("C:\\work\\proj\\src\\a.ts");
    expect(refusal(() => policy.resolveRead("c:\\WINDOWS\\System32\\drivers\\etc\\hosts")).code).toBe("system_path");
    expect(refusal(() => policy.resolveRead("C:\\Users\\me\\x")).code).toBe("outside_project");
  });
});

describe("parseExtraPaths", () => {
  test("splits on the path delimiter and commas, dropping blanks", () => {
    expect(parseExtraPaths(undefined)).toEqual([]);
    expect(parseExtraPaths(` /a${path.delimiter}/b ,/c,, `)).toEqual(["/a", "/b", "/c"]);
  });
});
