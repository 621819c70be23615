/**
 * Keeps secrets out of everything chatcli writes to disk (session files, checkpoint history copies, logs,
 * compaction archives): each serialized text passes through a Redactor before it is written. Replaced by
 * `[REDACTED]`:
 * - the values of environment variables named like secrets (`*KEY*`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`,
 *   `*CREDENTIAL*`, `*AUTH*`), and the values of every variable loaded from `.env`, whatever its name
 *   (config/dotenv.ts remembers them), unless a value is too ordinary to be a secret (`development`, `3000`, a path);
 * - passwords inside URLs (`postgres://user:pw@host`);
 * - well-known key shapes (OpenAI/Anthropic `sk-…`, Stripe `sk_live_…`, GitHub `ghp_…`/`github_pat_…`, AWS `AKIA…`,
 *   Slack `xox[bp]-…`, Google `AIza…`, JWTs) and PEM private key blocks.
 * Works on the text (JSON or plain), so every field is covered.
 */
import { loadedDotenvValues } from "../config/dotenv.ts";

export const REDACTED = "[REDACTED]";

const SECRET_NAME = /(^|_)(API_?KEYS?|KEYS?|TOKENS?|SECRETS?|PASSWORDS?|PASSWD|PASS|PWD_HASH|CREDENTIALS?|AUTH|PRIVATE_KEY|DSN)(_|$)|PASSWORD|SECRET|TOKEN|CREDENTIAL/i;
/** Shorter values are too likely to collide with ordinary text ("true", "1234"). */
const MIN_SECRET_LEN = 8;
const MIN_NAMED_SECRET_LEN = 6;

const KEY_PATTERNS: RegExp[] = [
  /\bsk-ant-[A-Za-z0-9_-]{20,}/g, // Anthropic
  /\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}/g, // OpenAI
  /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g, // Stripe
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}\b/g, // GitHub
  /\bgithub_pat_[A-Za-z0-9_]{40,}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key id
  /\bgsk_[A-Za-z0-9]{30,}\b/g, // Groq
  /\bxai-[A-Za-z0-9]{30,}\b/g, // xAI
  /\bhf_[A-Za-z0-9]{30,}\b/g, // Hugging Face
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, // JWT
];
/** PEM private keys, raw or inside a JSON string (newlines as `\n`). */
const PEM = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g;
/** `scheme://user:password@host`: the password part. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@"'\\]*):([^\s@/"'\\]+)@/gi;

export type Redactor = (text: string) => string;

/**
 * Builds a redactor for the secrets in `env` plus `extraSecrets` (by default the values this process loaded from
 * `.env`). Read once: the values are what the process was given.
 */
export function createRedactor(env: Readonly<Record<string, string | undefined>>, extraSecrets: readonly string[] = loadedDotenvValues()): Redactor {
  const literal = secretLiterals(env, extraSecrets);
  return (text) => {
    let out = text;
    for (const v of literal) if (out.includes(v)) out = out.split(v).join(REDACTED);
    out = out.replace(PEM, (_m, kind: string) => `-----BEGIN ${kind}PRIVATE KEY-----${REDACTED}-----END ${kind}PRIVATE KEY-----`);
    out = out.replace(URL_PASSWORD, (m, head: string, pw: string) => (pw === REDACTED ? m : `${head}:${REDACTED}@`));
    for (const re of KEY_PATTERNS) out = out.replace(re, REDACTED);
    if (out.includes(ELLIPSIS)) out = redactCutSecrets(out, literal);
    return out;
  };
}

/** The literal values a redactor replaces, longest first (plus their JSON-escaped forms). */
export function secretLiterals(env: Readonly<Record<string, string | undefined>>, extraSecrets: readonly string[] = []): string[] {
  const values = new Set<string>();
  const add = (v: string) => {
    values.add(v);
    // The value as it appears inside a JSON string (quotes, backslashes, control characters escaped).
    values.add(JSON.stringify(v).slice(1, -1));
  };
  for (const [k, v] of Object.entries(env)) {
    if (v && v.length >= MIN_NAMED_SECRET_LEN && SECRET_NAME.test(k) && k !== "PWD" && k !== "OLDPWD") add(v);
  }
  for (const v of extraSecrets) if (couldBeSecret(v)) add(v);
  // Longest first, so a value containing another is replaced whole.
  return [...values].sort((a, b) => b.length - a.length);
}

/**
 * A `.env` value worth redacting whatever its variable's name: long enough, and not an everyday word, number,
 * boolean, plain path or credential-less URL (redacting `development` or `/usr/local` would garble every record).
 */
function couldBeSecret(v: string): boolean {
  const s = v.trim();
  if (s.length < MIN_SECRET_LEN) return false;
  if (/^[a-z]+(?:[-_][a-z]+)*$/i.test(s) && s.length < 16) return false;
  if (/^(?:true|false|yes|no|on|off|null|none)$/i.test(s) || /^[0-9.:-]+$/.test(s)) return false;
  if (/^(?:\.{0,2}\/|~\/)[\w./-]*$/.test(s)) return false;
  if (/^[a-z][a-z0-9+.-]*:\/\/[^@\s]*$/i.test(s) && !/[?&](?:key|token|secret|password|sig)=/i.test(s)) return false;
  return true;
}

const ELLIPSIS = "…";
/** A known key shape cut short by a title or label ("sk-ant-api03-abcd…"), too short for KEY_PATTERNS. */
const CUT_KEY = /\b(?:sk-|[rs]k_live_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xox[abposr]-|AKIA|ASIA|gsk_|xai-|hf_|AIza|eyJ)[A-Za-z0-9_-]{4,}…/g;

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
