// The file tools through an injected FileAccess (an editor's buffers over ACP): reads and writes go through it,
// only after the path policy; without one, the disk as before.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { editTool } from "../../../src/tool/builtin/edit.ts";
import { readTool } from "../../../src/tool/builtin/read.ts";
import { writeTool } from "../../../src/tool/builtin/write.ts";
import type { FileAccess } from "../../../src/tool/file-access.ts";
import { makeCtx, type TempProject, tempProject } from "./support.ts";

let proj: TempProject;
beforeEach(() => {
  proj = tempProject();
});
afterEach(() => proj.cleanup());

/** An editor: buffers over the disk, and a record of every call. */
function editor(buffers: Record<string, string> = {}): FileAccess & { calls: string[]; written: Map<string, string> } {
  const calls: string[] = [];
  const written = new Map<string, string>();
  return {
    calls,
    written,
    readText: async (abs) => {
      calls.push(`read ${abs}`);
      return buffers[abs] ?? readFileSync(abs, "utf8");
    },
    writeText: async (abs, content) => {
      calls.push(`write ${abs}`);
      written.set(abs, content);
    },
  };
}

describe("file tools through FileAccess", () => {
  test("read returns the editor's unsaved buffer, not the disk", async () => {
    const abs = proj.file("a.txt", "on disk\n");
    const ed = editor({ [abs]: "in the editor\n" });
    const out = await readTool.run({ path: "a.txt" }, makeCtx(proj.root, { files: ed }));
    expect(out.text).toContain("in the editor");
    expect(out.text).not.toContain("on disk");
    expect(ed.calls).toEqual([`read ${abs}`]);
  });

  test("write hands the text to the editor (parent directories created) and does not touch the disk itself", async () => {
    const ed = editor();
    const out = await writeTool.run({ path: "new/dir/b.txt", content: "hello" }, makeCtx(proj.root, { files: ed }));
    expect(out.isError).toBeUndefined();
    const abs = path.join(proj.root, "new/dir/b.txt");
    expect(ed.written.get(abs)).toBe("hello");
    expect(existsSync(path.dirname(abs))).toBe(true);
    expect(existsSync(abs)).toBe(false);
  });

  test("edit plans on the editor's text and writes the result through it", async () => {
    const abs = proj.file("c.ts", "const a = 1;\n");
    const ed = editor({ [abs]: "const a = 2; // unsaved\n" });
    const out = await editTool.run({ path: "c.ts", old_string: "2; // unsaved", new_string: "3;" }, makeCtx(proj.root, { files: ed }));
    expect(out.isError).toBeUndefined();
    expect(ed.written.get(abs)).toBe("const a = 3;\n");
    expect(readFileSync(abs, "utf8")).toBe("const a = 1;\n");
  });

  test("the path policy runs first: a path outside the project never reaches the editor", async () => {
    const ed = editor();
    const out = await writeTool.run({ path: "/etc/chatcli-nope.txt", content: "x" }, makeCtx(proj.root, { files: ed }));
    expect(out.isError).toBe(true);
    expect(ed.calls).toEqual([]);
  });

  test("an editor that only reads: writes go to the disk", async () => {
    const abs = proj.file("d.txt", "x\n");
    const readOnly: FileAccess = { readText: async () => "buffer\n" };
    const out = await writeTool.run({ path: "d.txt", content: "y\n" }, makeCtx(proj.root, { files: readOnly }));
    expect(out.isError).toBeUndefined();
    expect(readFileSync(abs, "utf8")).toBe("y\n");
  });
});
