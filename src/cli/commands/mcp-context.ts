/** What every `chatcli mcp …` subcommand works with: where the files are and where to write. */
export interface Out {
  write(s: string): unknown;
}

export interface McpCliContext {
  env: Record<string, string | undefined>;
  cwd: string;
  /** chatcli's home (CHATCLI_HOME or ~/.chatcli): settings.json, approvals, OAuth tokens. */
  home: string;
  projectRoot: string;
  out: Out;
  err: Out;
}
