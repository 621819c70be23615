/**
 * A small synchronous highlighter for fenced code in the transcript: comments, strings, numbers and keywords of
 * the common languages, one line at a time (a block comment or string spanning lines is not tracked — good
 * enough for reading, and it keeps a streamed block's lines stable once drawn).
 */
import { TextAttributes, type TextChunk } from "@opentui/core";
import { chunk } from "./styled-chunk.ts";
import { colors } from "./theme.ts";

const C_LIKE = "break case catch class const continue default do else enum export extends false finally for function if implements import in instanceof interface let new null return static super switch this throw true try typeof var void while yield async await from of as type readonly private public protected undefined";
const KEYWORDS: Record<string, string> = {
  js: C_LIKE, ts: C_LIKE, tsx: C_LIKE, jsx: C_LIKE, javascript: C_LIKE, typescript: C_LIKE,
  java: `${C_LIKE} package final abstract void int long boolean char double float`,
  c: "auto break case char const continue default do double else enum extern float for goto if int long register return short signed sizeof static struct switch typedef union unsigned void volatile while include define",
  go: "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false",
  rust: "as async await break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while",
  py: "and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield self",
  sh: "if then else elif fi case esac for while until do done in function return export local readonly echo exit",
};
const ALIASES: Record<string, string> = { python: "py", bash: "sh", shell: "sh", zsh: "sh", console: "sh", rs: "rust", golang: "go", cpp: "c", "c++": "c", h: "c", kotlin: "java", cs: "java", csharp: "java", mjs: "js", cjs: "js" };
const sets = new Map<string, Set<string>>();
function keywords(lang: string): Set<string> {
  const key = KEYWORDS[lang] ? lang : (ALIASES[lang] ?? "js");
  let s = sets.get(key);
  if (!s) sets.set(key, (s = new Set(KEYWORDS[key]!.split(" "))));
  return s;
}

const TOKEN = /(\/\/.*$|#(?![!{[]).*$|--\s.*$|\/\*.*?(?:\*\/|$))|("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|\b(0x[\da-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?)\b|([A-Za-z_$][\w$]*)(\s*\()?/g;

/** Appends the chunks of one code line (no newline) to `out`. */
export function highlightCodeLine(line: string, lang: string, out: TextChunk[]): void {
  const kw = keywords(lang);
  const hashComments = lang === "py" || lang === "python" || ALIASES[lang] === "sh" || lang === "sh" || lang === "yaml" || lang === "toml" || lang === "ruby" || lang === "rb";
  let last = 0;
  let plain = "";
  const flush = () => {
    if (plain) out.push(chunk(plain, colors.code));
    plain = "";
  };
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(line); m; m = TOKEN.exec(line)) {
    plain += line.slice(last, m.index);
    last = m.index + m[0].length;
    if (m[1] !== undefined && (m[1][0] !== "#" || hashComments) && (!m[1].startsWith("--") || lang === "sql" || lang === "lua")) {
      flush();
      out.push(chunk(m[1], colors.dim, TextAttributes.ITALIC));
    } else if (m[1] !== undefined) {
      plain += m[1][0];
      last = m.index + 1;
      TOKEN.lastIndex = last;
    } else if (m[2] !== undefined) {
      flush();
      out.push(chunk(m[2], colors.string));
    } else if (m[3] !== undefined) {
      flush();
      out.push(chunk(m[3], colors.number));
    } else if (m[4] !== undefined) {
      if (kw.has(m[4])) {
        flush();
        out.push(chunk(m[4], colors.keyword, TextAttributes.BOLD));
      } else if (m[5] !== undefined) {
        flush();
        out.push(chunk(m[4], colors.func));
      } else plain += m[4];
      if (m[5] !== undefined) plain += m[5];
    }
  }
  plain += line.slice(last);
  flush();
}
