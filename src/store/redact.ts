/**
 * Keeps secrets out of session files: the values of environment variables named like keys or tokens, and
 * text shaped like well-known API keys, are replaced by `[REDACTED]` in each serialized record before it
 * is written. Works on the JSON text, so every field (messages, tool output, events) is covered.
 */

export const REDACTED = "[REDACTED]";

const SECRET_ENV = /(_API_KEY|_TOKEN|_SECRET|_ACCESS_KEY|_PASSWORD)$/i;
/** Shorter values are too likely to collide with ordinary text ("true", "1234"). */
const MIN_SECRET_LEN = 8;

const KEY_PATTERNS: RegExp[] = [
  /\bsk-ant-[A-Za-z0-9_-]{20,}/g, // Anthropic
  /\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}/g, // OpenAI
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}\b/g, // GitHub
  /\bgithub_pat_[A-Za-z0-9_]{40,}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\bgsk_[A-Za-z0-9]{30,}\b/g, // Groq
  /\bxai-[A-Za-z0-9]{30,}\b/g, // xAI
];

export type Redactor = (jsonText: string) => string;

/** Builds a redactor for the secrets in `env` (read once: the values are what the process was given). */
export function createRedactor(env: Readonly<Record<string, string | undefined>>): Redactor {
  const values = new Set<string>();
  for (const [k, v] of Object.entries(env)) {
    if (!v || v.length < MIN_SECRET_LEN || !SECRET_ENV.test(k)) continue;
    values.add(v);
    // The value as it appears inside a JSON string (quotes, backslashes, control characters escaped).
    values.add(JSON.stringify(v).slice(1, -1));
  }
  // Longest first, so a value containing another is replaced whole.
  const literal = [...values].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const v of literal) if (out.includes(v)) out = out.split(v).join(REDACTED);
    for (const re of KEY_PATTERNS) out = out.replace(re, REDACTED);
    if (out.includes(ELLIPSIS)) out = redactCutSecrets(out, literal);
    return out;
  };
}

const ELLIPSIS = "…";
/** A known key shape cut short by a title or label ("sk-ant-api03-abcd…"), too short for KEY_PATTERNS. */
const CUT_KEY = /\b(?:sk-|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|xox[abprs]-|AKIA|gsk_|xai-|AIza)[A-Za-z0-9_-]{4,}…/g;

/**
 * Titles and checkpoint labels are cut to a length with "…", which can cut a secret in two: the whole value no
 * longer matches, yet its first part would be written. A secret's prefix (≥ MIN_SECRET_LEN) right before
 * "…" is redacted too.
 */
function redactCutSecrets(text: string, secrets: readonly string[]): string {
  let out = text.replace(CUT_KEY, `${REDACTED}${ELLIPSIS}`);
  for (const v of secrets) {
    let at = out.indexOf(ELLIPSIS);
    while (at >= 0) {
      let k = Math.min(v.length - 1, at);
      while (k >= MIN_SECRET_LEN && out.slice(at - k, at) !== v.slice(0, k)) k--;
      if (k >= MIN_SECRET_LEN) {
        out = out.slice(0, at - k) + REDACTED + out.slice(at);
        at = out.indexOf(ELLIPSIS, at - k + REDACTED.length + 1);
      } else at = out.indexOf(ELLIPSIS, at + 1);
    }
  }
  return out;
}
