/**
 * The values this process loaded from `.env` files, whatever their names: the redactor (store/redact.ts) keeps
 * every one of them out of session files, snapshots, logs and archives.
 */
const loaded = new Set<string>();

/** Records values loaded from a `.env` file (loadConfig calls it for the variables it actually set). */
export function rememberDotenvValues(values: Iterable<string>): void {
  for (const v of values) if (v !== "") loaded.add(v);
}

export function loadedDotenvValues(): string[] {
  return [...loaded];
}

/**
 * Minimal `.env` parser: KEY=VALUE lines, `export ` prefix, # comments, single/double quotes
 * (double quotes understand \n and \"). Values never override variables already in the environment.
 */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (!line || line.startsWith("#")) continue;
    const m = line.match(/^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$/);
    if (!m || !m[1]) continue;
    out[m[1]] = unquote(m[2] ?? "");
  }
  return out;
}

function unquote(v: string): string {
  const s = v.trim();
  if (s.startsWith('"')) {
    const end = findClosing(s, '"');
    const body = s.slice(1, end < 0 ? undefined : end);
    return body.replace(/\\n/g, "\n").replace(/\\r/g, "\r").replace(/\\t/g, "\t").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
  }
  if (s.startsWith("'")) {
    const end = s.indexOf("'", 1);
    return s.slice(1, end < 0 ? undefined : end);
  }
  const hash = s.search(/\s#/);
  return (hash >= 0 ? s.slice(0, hash) : s).trim();
}

function findClosing(s: string, q: string): number {
  for (let i = 1; i < s.length; i++) {
    if (s[i] === "\\") {
      i++;
      continue;
    }
    if (s[i] === q) return i;
  }
  return -1;
}
