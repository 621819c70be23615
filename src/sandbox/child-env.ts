/**
 * The environment of commands the agent runs: chatcli's own environment minus secrets, with or without the
 * sandbox. Dropped: the provider key variables (the registry's list, passed in), any name like `*_KEY`, `*_TOKEN`,
 * `*SECRET*`, `*PASSWORD*`/`*PASSWD*`, `*CREDENTIAL*`, `*API_KEY*`, `*PRIVATE_KEY*`, `*ACCESS_KEY*`, and any value
 * holding a URL with a password (`scheme://user:pass@host`). Names on the settings allowlist (`sandbox.env`,
 * `*` as a wildcard) are kept whatever they look like: that is how a user passes a token a build needs.
 */

const SECRET_NAME = [/_KEY$/i, /_TOKEN$/i, /_TOKEN_/i, /SECRET/i, /PASSWORD/i, /PASSWD/i, /CREDENTIAL/i, /API_?KEY/i, /PRIVATE_KEY/i, /ACCESS_KEY/i, /^GH_TOKEN$/i];
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:[^\s/@]+@/i;

export interface ChildEnvOptions {
  /** Provider key variables (OPENAI_API_KEY, …): always dropped unless allowlisted. */
  secretNames?: Iterable<string>;
  /** Settings `sandbox.env`: names (or `PREFIX_*` patterns) passed through anyway. */
  allow?: readonly string[];
}

export interface ChildEnvResult {
  env: Record<string, string>;
  /** Names that were dropped (for a debug line; never the values). */
  dropped: string[];
}

export function childEnv(env: Readonly<Record<string, string | undefined>>, o: ChildEnvOptions = {}): ChildEnvResult {
  const explicit = new Set([...(o.secretNames ?? [])].map((n) => n.toUpperCase()));
  const allow = (o.allow ?? []).map(globToRegExp);
  const out: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (allow.some((re) => re.test(name)) || !isSecret(name, value, explicit)) out[name] = value;
    else dropped.push(name);
  }
  return { env: out, dropped };
}

export function isSecret(name: string, value: string, explicit: ReadonlySet<string> = new Set()): boolean {
  if (explicit.has(name.toUpperCase())) return true;
  if (SECRET_NAME.some((re) => re.test(name))) return true;
  return URL_WITH_PASSWORD.test(value);
}

function globToRegExp(glob: string): RegExp {
  const body = glob.trim().replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${body}$`);
}
