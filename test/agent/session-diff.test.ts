import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatSessionDiff, sessionDiff } from "../../src/agent/checkpoints/session-diff.ts";

test("/diff: changed, created, deleted, binary and uncopied files; unchanged ones left out; stats add up", () => {
  const root = mkdtempSync(join(tmpdir(), "session-diff-"));
  try {
    const enc = (s: string) => new TextEncoder().encode(s);
    writeFileSync(join(root, "changed.txt"), "a\nB\nc\n");
    writeFileSync(join(root, "created.txt"), "new\n");
    writeFileSync(join(root, "same.txt"), "same\n");
    writeFileSync(join(root, "img.bin"), new Uint8Array([0, 1, 2]));
    writeFileSync(join(root, "big.log"), "x\n");
    const d = sessionDiff(
      [
        { path: join(root, "changed.txt"), before: enc("a\nb\nc\n") },
        { path: join(root, "created.txt"), before: null },
        { path: join(root, "deleted.txt"), before: enc("gone\nwith it\n") },
        { path: join(root, "same.txt"), before: enc("same\n") },
        { path: join(root, "img.bin"), before: new Uint8Array([0, 9]) },
        { path: join(root, "big.log"), before: { unrestorable: "larger than 2 MB" } },
      ],
      root,
    );
    expect(d.files.map((f) => [f.path, f.added, f.removed])).toEqual([
      ["changed.txt", 1, 1],
      ["created.txt", 1, 0],
      ["deleted.txt", 0, 2],
      ["img.bin", 0, 0],
      ["big.log", 0, 0],
    ]);
    expect(d.added).toBe(2);
    expect(d.removed).toBe(3);
    const text = formatSessionDiff(d);
    expect(text).toContain("5 files changed, +2 -3");
    expect(text).toContain("--- /dev/null\n+++ b/created.txt");
    expect(text).toContain("--- a/deleted.txt\n+++ /dev/null");
    expect(text).toContain("-b\n+B");
    expect(text).toContain("img.bin: binary file changed");
    expect(text).toContain("big.log: changed, no earlier copy kept (larger than 2 MB)");
    expect(formatSessionDiff(sessionDiff([], root))).toBe("No file changed in this session.");
    expect(formatSessionDiff(sessionDiff([{ path: join(root, "created.txt"), before: null }], root))).toContain("1 file changed, +1 -0");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
