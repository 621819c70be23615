/**
 * The environment that makes a read-only git call unable to run repository-controlled programs. A repository's
 * `.git/config` (or an embedded bare repository, or a `.git` file pointing at one) may name programs that `git
 * status` / `diff` / `log` run on their own: `core.fsmonitor`, hooks (`post-index-change` fires when status
 * refreshes the index), a pager, signature verification. Settings passed through GIT_CONFIG_COUNT/KEY/VALUE rank
 * like `git -c` above every config file, so they win over the repository's. Used by chatcli's own git calls and,
 * through the exec tool, by the git calls the permission policy auto-allows as read-only.
 * Not covered (needs control of a config file, which the protected-path rules keep from the model): `diff.external`
 * and `diff.<driver>.textconv` / `filter.<driver>.*` drivers named in that config.
 */

const CONFIG: ReadonlyArray<readonly [string, string]> = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["safe.bareRepository", "explicit"],
  ["core.pager", "cat"],
  ["log.showSignature", "false"],
  ["gpg.program", "false"],
  ["gpg.ssh.program", "false"],
  ["gpg.x509.program", "false"],
  ["protocol.allow", "never"],
  ["credential.helper", ""],
];

/**
 * Environment variables to merge over `base` (the environment the git process would otherwise get) for a hardened
 * run. Settings `base` already passes through GIT_CONFIG_COUNT are kept and ours are appended after them, so ours win.
 */
export function gitHardeningEnv(base: Readonly<Record<string, string | undefined>> = {}): Record<string, string> {
  const inherited = Number(base.GIT_CONFIG_COUNT ?? 0);
  const offset = Number.isInteger(inherited) && inherited > 0 && inherited < 1000 ? inherited : 0;
  const vars: Record<string, string> = {
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_COUNT: String(offset + CONFIG.length),
    GIT_PAGER: "cat",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
  };
  CONFIG.forEach(([key, value], i) => {
    vars[`GIT_CONFIG_KEY_${offset + i}`] = key;
    vars[`GIT_CONFIG_VALUE_${offset + i}`] = value;
  });
  return vars;
}

/** `process.env` with the hardening applied, for spawning git directly. */
export function hardenedGitProcessEnv(base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) out[k] = v;
  return { ...out, ...gitHardeningEnv(base) };
}
