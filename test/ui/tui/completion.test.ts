import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expandAtMentions } from "../../../src/agent/at-mentions.ts";
import { BUILTIN_COMMANDS, complete, listProjectFiles } from "../../../src/ui/tui/completion.ts";

const root = mkdtempSync(join(tmpdir(), "chatcli-completion-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("@ completion of a path with spaces inserts `\\ ` escapes that the @-mention expander attaches", () => {
  mkdirSync(join(root, "my docs"), { recursive: true });
  writeFileSync(join(root, "my docs", "release notes.md"), "NOTES-BODY\n");
  writeFileSync(join(root, "plain.txt"), "plain\n");
  const files = () => listProjectFiles(root);
  const c = complete("look at @my", BUILTIN_COMMANDS, files)!;
  const item = c.items.find((i) => i.label === "@my docs/release notes.md")!;
  expect(item.insert).toBe("@my\\ docs/release\\ notes.md");
  const text = "look at @my".slice(0, c.start) + item.insert;
  expect(text).toBe("look at @my\\ docs/release\\ notes.md");
  // Typing on after an escaped space still completes the same token.
  const again = complete("look at @my\\ docs/rel", BUILTIN_COMMANDS, files)!;
  expect(again.start).toBe("look at ".length);
  expect(again.items.map((i) => i.label)).toEqual(["@my docs/release notes.md"]);
  const expanded = expandAtMentions(text, { projectRoot: root });
  expect(expanded.notices).toEqual([]);
  expect(expanded.attachments.map((a) => a.path)).toEqual(["my docs/release notes.md"]);
  expect(expanded.text).toContain("NOTES-BODY");
});

test("a path without spaces is inserted as is", () => {
  const c = complete("@pla", BUILTIN_COMMANDS, () => listProjectFiles(root))!;
  expect(c.items.map((i) => i.insert)).toEqual(["@plain.txt"]);
});
