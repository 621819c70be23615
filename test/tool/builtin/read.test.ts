import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { readTool } from "../../../src/tool/builtin/read.ts";
import { hasLoneSurrogate, makeCtx, type TempProject, tempProject } from "./support.ts";

let proj: TempProject;
beforeEach(() => {
  proj = tempProject();
});
afterEach(() => proj.cleanup());

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

describe("read", () => {
  test("numbers lines as `<n>\\t<text>` and reports the range", async () => {
    proj.file("src/a.ts", "const a = 1;\r\nconst b = 2;\n");
    const out = await readTool.run({ path: "src/a.ts" }, makeCtx(proj.root));
    expect(out.isError).toBeUndefined();
    expect(out.text).toBe("1\tconst a = 1;\n2\tconst b = 2;");
    expect(out.details).toEqual({ path: "src/a.ts", startLine: 1, endLine: 2, totalLines: 2 });
  });

  test("offset + limit and start_line/end_line select a range, numbers padded to the widest", async () => {
    proj.file("big.txt", lines(120));
    const a = await readTool.run({ path: "big.txt", offset: 98, limit: 3 }, makeCtx(proj.root));
    expect(a.text.split("\n").slice(0, 3)).toEqual([" 98\tline 98", " 99\tline 99", "100\tline 100"]);
    expect(a.text).toContain("showing lines 98-100 of 120; use offset=101");
    const b = await readTool.run({ path: "big.txt", start_line: 10, end_line: 11 }, makeCtx(proj.root));
    expect(b.text.split("\n").slice(0, 2)).toEqual(["10\tline 10", "11\tline 11"]);
    expect(b.details).toMatchObject({ startLine: 10, endLine: 11, totalLines: 120 });
    expect(readTool.describe({ path: "big.txt", start_line: 10, end_line: 11 })).toBe("read big.txt:10-11");
  });

  test("a range past the end is an out_of_range error", async () => {
    proj.file("s.txt", lines(3));
    const out = await readTool.run({ path: "s.txt", offset: 10 }, makeCtx(proj.root));
    expect(out.errorCode).toBe("out_of_range");
    expect(out.text).toContain("has 3 lines");
  });

  test("a missing file is ENOENT with similar names as a hint", async () => {
    proj.file("src/main.ts", "x");
    const out = await readTool.run({ path: "src/main.js" }, makeCtx(proj.root));
    expect(out.isError).toBe(true);
    expect(out.errorCode).toBe("ENOENT");
    expect(out.text).toContain("src/main.js");
    expect(out.text).toContain("main.ts");
  });

  test("binary files are refused", async () => {
    proj.file("img.bin", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
    const out = await readTool.run({ path: "img.bin" }, makeCtx(proj.root));
    expect(out.errorCode).toBe("binary_file");
  });

  test("directories, empty files", async () => {
    mkdirSync(path.join(proj.root, "d"));
    expect((await readTool.run({ path: "d" }, makeCtx(proj.root))).errorCode).toBe("EISDIR");
    proj.file("empty.txt", "");
    const out = await readTool.run({ path: "empty.txt" }, makeCtx(proj.root));
    expect(out.isError).toBeUndefined();
    expect(out.details?.totalLines).toBe(0);
  });

  test("paths go through the policy: symlink escape and system path refused, extra read path allowed", async () => {
    const outside = tempProject("chatcli-read-out-");
    try {
      outside.file("x.txt", "outside text");
      symlinkSync(path.join(outside.root, "x.txt"), path.join(proj.root, "escape.txt"));
      expect((await readTool.run({ path: "escape.txt" }, makeCtx(proj.root))).errorCode).toBe("outside_project");
      expect((await readTool.run({ path: "/etc/passwd" }, makeCtx(proj.root))).errorCode).toBe("system_path");
      const ok = await readTool.run({ path: path.join(outside.root, "x.txt") }, makeCtx(proj.root, { extraReadPaths: [outside.root] }));
      expect(ok.text).toBe("1\toutside text");
      expect(ok.details?.path).toBe(path.join(outside.root, "x.txt"));
    } finally {
      outside.cleanup();
    }
  });

  test("the 80k cap holds and emoji at the cut stay whole", async () => {
    const line = "😀".repeat(999);
    proj.file("emoji.txt", Array.from({ length: 60 }, () => line).join("\n"));
    const saved: string[] = [];
    const out = await readTool.run({ path: "emoji.txt" }, makeCtx(proj.root, { saveOverflow: (t) => (saved.push(t), "/ws/read.txt") }));
    expect(out.text).toContain("full output saved to /ws/read.txt");
    const body = out.text.replace(/\n\[TRUNCATED[^\]]*\][^\n]*\n/, "");
    expect(body.length).toBeLessThanOrEqual(80_000);
    expect(hasLoneSurrogate(out.text)).toBe(false);
    expect(saved[0]?.length).toBeGreaterThan(80_000);
  });

  test("file_path alias is accepted", async () => {
    proj.file("a.txt", "a");
    expect((await readTool.run({ file_path: "a.txt" }, makeCtx(proj.root))).text).toBe("1\ta");
  });
});
