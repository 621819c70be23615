/**
 * Last-resort split of a command line that parse-shell could not parse, used only to run blocklists (dangerous
 * and safety-immune checks) on something. Every shell metacharacter ends a command and quotes are dropped, so
 * `'r''m' -rf /` still reads as `rm -rf /`. Never used to decide that something is safe.
 */
const SEPARATORS = new Set([";", "&", "|", "(", ")", "{", "}", "<", ">", "\n", "`"]);

export function roughSplit(text: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "$" && text[i + 1] === "(") {
      endCommand();
      i++;
    } else if (SEPARATORS.has(c)) endCommand();
    else if (c === " " || c === "\t") endWord(); // `\r` is a word character to bash
    else if (c === "'" || c === '"') inWord = true;
    else if (c === "\\") {
      const n = text[i + 1];
      if (n !== undefined && n !== "\n") word += n;
      inWord = true;
      i++;
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}
