/**
 * `${VAR}` and `${VAR:-default}` in an MCP entry's command, args, env, cwd, url and headers (the syntax Claude
 * Code's `.mcp.json` uses), read from the real environment. An unset variable without a default becomes "".
 */
export function expandEnvRefs(text: string, env: Record<string, string | undefined>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, fallback: string | undefined) => {
    const v = env[name];
    return v !== undefined && v !== "" ? v : (fallback ?? "");
  });
}
