/** English messages of `chatcli acp` (issue 22): the Agent Client Protocol front. */
export const enAcp = {
  "args.acp": "Run as an Agent Client Protocol agent on stdin/stdout, for editors (Zed, JetBrains, Neovim)",
  "acp.help":
    "usage: chatcli acp [--provider P] [--model M] [--permission-mode default|accept-edits|plan]\n\n  Speaks the Agent Client Protocol (agentclientprotocol.com) on stdin/stdout; logs go to stderr.\n  An editor starts it as its agent command. Sessions are saved as usual: session/load resumes them.\n  --provider, --model        the model of new sessions\n  --permission-mode MODE     the mode sessions start in (bypass is never offered over ACP)\n\nDetails: docs/server.md (section ACP).",
  "acp.runHelp": "Run `chatcli acp --help` for usage.",
  "acp.unknownFlag": "acp: unknown option {flag}",
  "acp.missingValue": "acp: {flag} needs a value",
  "acp.badMode": "acp: --permission-mode must be one of {modes} (bypass is not offered over ACP)",
  "acp.log": "acp: {line}",
  "acp.allowOnce": "Allow once",
  "acp.allowAlways": "Always allow",
  "acp.rejectOnce": "Reject",
  "acp.rejectAlways": "Always reject",
  "acp.mode.default": "Default",
  "acp.mode.accept-edits": "Accept edits",
  "acp.mode.plan": "Plan",
  "acp.modeHelp.default": "Asks before edits and commands that change things",
  "acp.modeHelp.accept-edits": "Edits in the project are allowed; commands still ask",
  "acp.modeHelp.plan": "Read-only: explores and plans, changes nothing",
} as const;
