import { describe, expect, test } from "bun:test";
import { parseShell } from "../../../src/tool/shell/parse-shell.ts";
import { roughSplit } from "../../../src/tool/shell/rough-split.ts";
import type { ShellScript } from "../../../src/tool/shell/shell-types.ts";

function ok(text: string): ShellScript {
  const r = parseShell(text);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(text)} to parse: ${r.error}`);
  return r.script;
}
const argvs = (text: string) => ok(text).commands.map((c) => c.argv);
const features = (text: string) => [...ok(text).features].sort();

describe("words", () => {
  test("quote removal and escapes", () => {
    expect(argvs(`'r''m' -rf /`)).toEqual([["rm", "-rf", "/"]]);
    expect(argvs(`\\rm "a b" c\\ d 'x"y' "q\\"z" "\\n"`)).toEqual([["rm", "a b", "c d", 'x"y', 'q"z', "\\n"]]);
    expect(argvs(`$'\\x72\\155' $'a\\tb' $'\\''`)).toEqual([["rm", "a\tb", "'"]]);
    expect(argvs(`echo a\\\nb`)).toEqual([["echo", "ab"]]);
    const w = ok(`"rm"`).commands[0]?.words[0];
    expect(w).toMatchObject({ raw: `"rm"`, value: "rm", quoted: true, expansion: false });
  });

  test("expansions stay as source text and are flagged", () => {
    const [cmd] = ok(`echo $HOME "\${X:-y}" $1 $((1 + 2)) plain`).commands;
    expect(cmd?.argv).toEqual(["echo", "$HOME", "${X:-y}", "$1", "$((1 + 2))", "plain"]);
    expect(cmd?.words.map((w) => w.expansion)).toEqual([false, true, true, true, true, false]);
  });

  test("comments only at the start of a word", () => {
    expect(argvs("ls # rm -rf /")).toEqual([["ls"]]);
    expect(argvs("echo a#b")).toEqual([["echo", "a#b"]]);
    expect(argvs("# only a comment\nls")).toEqual([["ls"]]);
  });

  test("NAME=value prefixes are assignments, later ones are arguments", () => {
    const [cmd] = ok("FOO=1 BAR+=x arr[0]=y make X=2").commands;
    expect(cmd?.assignments.map((a) => a.value)).toEqual(["FOO=1", "BAR+=x", "arr[0]=y"]);
    expect(cmd?.argv).toEqual(["make", "X=2"]);
    expect(ok("A=1").commands[0]?.argv).toEqual([]);
    expect(ok("'A'=1 x").commands[0]?.argv).toEqual(["A=1", "x"]);
  });
});

describe("lists and pipelines", () => {
  test("connectors and features", () => {
    const s = ok("a; b && c || d | e |& f & g\nh");
    expect(s.commands.map((c) => [c.argv[0], c.connector])).toEqual([
      ["a", ""], ["b", ";"], ["c", "&&"], ["d", "||"], ["e", "|"], ["f", "|&"], ["g", "&"], ["h", "\n"],
    ]);
    expect([...s.features].sort()).toEqual(["and", "background", "or", "pipe", "sequence"]);
  });

  test("pipeline ids group piped commands", () => {
    const s = ok("a | b; c | d | e");
    expect(s.commands.map((c) => c.pipeline)).toEqual([1, 1, 2, 2, 2]);
  });

  test("trailing separators and blank lines are not sequences", () => {
    expect(features("ls;")).toEqual([]);
    expect(features("\n\nls\n\n")).toEqual([]);
    expect(features("ls &")).toEqual(["background"]);
  });

  test("operators may be followed by newlines", () => {
    expect(argvs("a &&\n b |\n c")).toEqual([["a"], ["b"], ["c"]]);
  });

  test("negation", () => {
    expect(features("! grep -q x f")).toEqual(["negation"]);
  });
});

describe("redirections", () => {
  test("operators, fds and targets", () => {
    const [cmd] = ok("cmd <in >out 2>>err 2>&1 &>all &>>all2 >|force 3<>rw 0<&- <<<here").commands;
    expect(cmd?.redirects.map((r) => [r.fd ?? null, r.op, r.target.value])).toEqual([
      [null, "<", "in"], [null, ">", "out"], [2, ">>", "err"], [2, ">&", "1"], [null, "&>", "all"], [null, "&>>", "all2"],
      [null, ">|", "force"], [3, "<>", "rw"], [0, "<&", "-"], [null, "<<<", "here"],
    ]);
    expect(cmd?.argv).toEqual(["cmd"]);
  });

  test("a digit word is an fd only right before the operator", () => {
    expect(ok("echo 2 >x").commands[0]?.argv).toEqual(["echo", "2"]);
    expect(ok("echo 2>x").commands[0]?.argv).toEqual(["echo"]);
  });

  test("redirections of compound commands apply to every command inside", () => {
    const s = ok("{ a; b; } > out");
    expect(s.commands.map((c) => c.redirects.map((r) => r.target.value))).toEqual([["out"], ["out"]]);
  });

  test("heredocs: body, quoted delimiter, <<- tab stripping, several on one line", () => {
    const s = ok("cat <<EOF; cat <<-'END' | wc\nline $(id)\nEOF\n\tx\n\tEND\nls");
    // Heredoc substitutions join the script where the body is read (at the end of the line).
    const [c1, c2, sub, , last] = s.commands;
    expect(s.commands.map((c) => c.argv[0])).toEqual(["cat", "cat", "id", "wc", "ls"]);
    expect(c1?.redirects[0]?.heredoc).toBe("line $(id)\n");
    expect(c2?.redirects[0]?.heredoc).toBe("x\n");
    expect(sub?.context).toBe("substitution");
    expect(last?.connector).toBe("\n");
    expect(ok("cat <<'EOF'\n$(rm x)\nEOF").commands.map((c) => c.argv[0])).toEqual(["cat"]);
  });
});

describe("substitutions", () => {
  test("$(…) and backticks are parsed and flattened before their command", () => {
    const s = ok("echo $(rm -rf / ; id) `whoami`");
    expect(s.commands.map((c) => [c.argv.join(" "), c.context])).toEqual([
      ["rm -rf /", "substitution"], ["id", "substitution"], ["whoami", "substitution"], ["echo $(rm -rf / ; id) `whoami`", "top"],
    ]);
    expect([...s.features].sort()).toEqual(["sequence", "substitution"]);
    expect(s.commands[3]?.words[1]?.substitutions.length).toBe(1);
  });

  test("a ) inside quotes or a case does not end $(…)", () => {
    expect(argvs(`echo "$(echo ")" ; echo 'a)b')"`).map((a) => a[0])).toEqual(["echo", "echo", "echo"]);
    expect(argvs("x=$(case a in a) echo y;; esac)").map((a) => a[0])).toEqual(["echo", undefined]);
  });

  test("nested substitutions, in ${…}, in backticks with escapes", () => {
    expect(argvs("echo $(echo $(id))").map((a) => a[0])).toEqual(["id", "echo", "echo"]);
    expect(argvs("echo ${A:-$(id)}").map((a) => a[0])).toEqual(["id", "echo"]);
    expect(argvs("echo `echo \\`id\\``").map((a) => a[0])).toEqual(["id", "echo", "echo"]);
  });

  test("process substitution", () => {
    const s = ok("diff <(ls a) >(tee b)");
    expect(s.commands.map((c) => c.argv[0])).toEqual(["ls", "tee", "diff"]);
    expect(s.features.has("process-substitution")).toBe(true);
  });
});

describe("compound commands", () => {
  test("subshell and group contexts", () => {
    const s = ok("(a; b) && { c; }");
    expect(s.commands.map((c) => [c.argv[0], c.context, c.connector])).toEqual([
      ["a", "subshell", ""], ["b", "subshell", ";"], ["c", "group", "&&"],
    ]);
  });

  test("if / while / until / for / case bodies", () => {
    expect(argvs("if a; then b; elif c; then d; else e; fi").map((x) => x[0])).toEqual(["a", "b", "c", "d", "e"]);
    expect(argvs("while a; do b; done; until c\ndo d\ndone").map((x) => x[0])).toEqual(["a", "b", "c", "d"]);
    expect(argvs("for f in $(ls) *.ts; do cat \"$f\"; done").map((x) => x[0])).toEqual(["ls", "cat"]);
    expect(argvs("for f\ndo echo $f; done").map((x) => x[0])).toEqual(["echo"]);
    expect(argvs("case $x in a|b) one;; (c) two;& *) three;; esac").map((x) => x[0])).toEqual(["one", "two", "three"]);
    expect(ok("if a; then b; fi").commands.every((c) => c.context === "compound")).toBe(true);
  });

  test("reserved words are plain words outside command position", () => {
    expect(argvs("echo if then fi done { }")).toEqual([["echo", "if", "then", "fi", "done", "{", "}"]]);
    expect(argvs('"if" x')).toEqual([["if", "x"]]);
  });

  test("function definitions, including the fork bomb", () => {
    const s = ok(":(){ :|:& };:");
    expect(s.functions.map((f) => [f.name, f.body.map((c) => c.argv[0])])).toEqual([[":", [":", ":"]]]);
    expect(s.commands.map((c) => [c.argv[0], c.context])).toEqual([[":", "group"], [":", "group"], [":", "top"]]);
    expect(ok("f() g").commands[0]?.context).toBe("function");
    expect(ok("function f { g; }").functions[0]?.name).toBe("f");
    expect(ok("function f() ( g )").functions[0]?.body[0]?.argv).toEqual(["g"]);
  });
});

describe("unparseable input", () => {
  for (const text of [
    "echo 'open", 'echo "open', "echo `open", "echo $(open", "echo ${open", "ls |", "ls &&", "| ls", ")", "(ls",
    "if a; then b", "for x in a; do b", "case x in a) b", "{ ls", "ls ;;", "echo $(( $(id) ))", "a && ; b",
  ]) {
    test(JSON.stringify(text), () => {
      const r = parseShell(text);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.length).toBeGreaterThan(0);
    });
  }

  test("deep nesting fails cleanly instead of overflowing", () => {
    const r = parseShell("echo " + "$(".repeat(40) + "x" + ")".repeat(40));
    expect(r.ok).toBe(false);
  });

  test("the rough split drops quotes and breaks at every metacharacter", () => {
    expect(roughSplit(`echo 'a; 'r''m -rf / && \\sudo x|y $(z) "open`)).toEqual([
      ["echo", "a"], ["rm", "-rf", "/"], ["sudo", "x"], ["y"], ["z"], ["open"],
    ]);
  });
});
