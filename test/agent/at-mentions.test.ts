// `@path` attachments against a real temp project and the real path policy.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expandAtMentions } from "../../src/agent/at-mentions.ts";

let root: string;
let project: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "chatcli-at-"));
  project = join(root, "project");
  mkdirSync(join(project, "src"), { recursive: true });
  writeFileSync(join(project, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(root, "secret.txt"), "outside the project\n");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

test("attaches mentioned files after the prompt, once each, with trailing punctuation ignored", () => {
  const r = expandAtMentions("compare @src/a.ts, and again (@src/a.ts) please", { projectRoot: project });
  expect(r.notices).toEqual([]);
  expect(r.attachments).toEqual([{ path: "src/a.ts", absPath: expect.stringContaining("a.ts"), chars: 20, truncated: false }]);
  expect(r.text.startsWith("compare @src/a.ts, and again (@src/a.ts) please\n\n")).toBe(true);
  expect(r.text).toContain('<attached_file path="src/a.ts">\nexport const a = 1;\n</attached_file>');
});

test("over the cap: cut with a marker in the text and a notice", () => {
  writeFileSync(join(project, "big.log"), "😀".repeat(40));
  const r = expandAtMentions("see @big.log", { projectRoot: project, cap: 11 });
  expect(r.attachments[0]!.truncated).toBe(true);
  expect(r.notices[0]).toContain("first 11 of 80 characters");
  expect(r.text).toContain("[... truncated");
  expect(r.text).not.toContain("\uD83D\n"); // never half a surrogate pair
});

test("missing, outside, directory and binary files leave the prompt unchanged with a notice; e-mails and @names are ignored", () => {
  writeFileSync(join(project, "img.bin"), Buffer.from([0x89, 0x50, 0x00, 0x01]));
  const text = "mail me@example.com, ask @coder, read @nope/x.ts @../secret.txt @src @img.bin";
  const r = expandAtMentions(text, { projectRoot: project });
  expect(r.text).toBe(text);
  expect(r.attachments).toEqual([]);
  expect(r.notices).toHaveLength(4);
  expect(r.notices[0]).toContain("@nope/x.ts: no such file");
  expect(r.notices[1]).toContain("outside");
  expect(r.notices[2]).toContain("is a directory");
  expect(r.notices[3]).toContain("binary");
});
