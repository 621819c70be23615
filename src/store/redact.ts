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
    return out;
  };
}
