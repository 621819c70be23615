/**
 * An argv array as a shell command line, for models that call exec the way other agents' shell tools take it
 * (`{"command": ["git", "log", "-n", "3"]}`). `["bash", "-lc", "<script>"]` is the script itself. Every word
 * that is not plainly safe is single-quoted, so the line runs exactly the argv given. Non-strings are kept as
 * JSON text (validation then reports a clear error when the result is not what the model meant).
 */
const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function shellQuoteWord(s: string): string {
  if (s !== "" && SAFE.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function argvToCommandLine(argv: unknown[]): string | unknown[] {
  if (argv.length === 0 || !argv.every((w) => typeof w === "string")) return argv;
  const words = argv as string[];
  if (words.length === 3 && /^(?:\/bin\/|\/usr\/bin\/)?(?:ba|z|da)?sh$/.test(words[0]!) && /^-l?c$/.test(words[1]!)) return words[2]!;
  return words.map(shellQuoteWord).join(" ");
}
