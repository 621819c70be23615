/** Where the lexer must read a line exactly as bash does (issue 14): `\r` is a word character, and `bare` keeps the unquoted characters. */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { parseShell } from "../../../src/tool/shell/parse-shell.ts";
import { roughSplit } from "../../../src/tool/shell/rough-split.ts";

const argvs = (line: string) => {
  const r = parseShell(line);
  if (!r.ok) throw new Error(r.error);
  return r.script.commands.map((c) => c.argv);
};
/** What bash itself runs: each simple command's words, printed by a DEBUG trap would be overkill; `printf` per word is enough here. */
const bashWords = (line: string) =>
  spawnSync("bash", ["-c", `words() { printf '<%s>' "$@"; echo; }; words ${line}`], { encoding: "utf8" }).stdout.trim();

describe("\\r is not a blank", () => {
  test("`\\r#` is a word, so the rest of the line still runs", () => {
    expect(argvs("echo hi \r# ; touch X")).toEqual([["echo", "hi", "\r#"], ["touch", "X"]]);
    expect(bashWords("hi \r# x")).toBe("<hi><\r#><x>");
  });

  test("a trailing \\r belongs to the last word, as in bash", () => {
    expect(argvs("ls -la\r")).toEqual([["ls", "-la\r"]]);
    expect(bashWords("-la\r")).toBe("<-la\r>");
  });

  test("the rough split of an unparseable line keeps \\r inside words too", () => {
    expect(roughSplit("echo 'x \r# ; rm -rf /")).toEqual([["echo", "x", "\r#"], ["rm", "-rf", "/"]]);
  });
});

describe("bare: the characters bash may still expand", () => {
  const bare = (line: string) => {
    const r = parseShell(line);
    if (!r.ok) throw new Error(r.error);
    return r.script.commands[0]!.words.map((w) => w.bare);
  };
  test("quoted and escaped characters are not bare", () => {
    expect(bare(`find . -name '*.ts'`)).toEqual(["find", ".", "-name", ""]);
    expect(bare(`ls src/*.ts "a*" \\* {a,b} '{c,d}'`)).toEqual(["ls", "src/*.ts", "", "", "{a,b}", ""]);
    expect(bare(`echo $HOME$'x'"y"z`)).toEqual(["echo", "z"]);
  });
});
