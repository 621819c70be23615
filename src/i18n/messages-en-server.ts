/** English messages of server mode (issue 22): `chatcli serve`. */
export const enServer = {
  "args.serve": "Serve sessions to editors and scripts over JSON-RPC 2.0 (docs/server.md)",
  "serve.help":
    "usage: chatcli serve --stdio [--provider P] [--model M] [--permission-mode MODE]\n       chatcli serve --print-schema\n\n  --stdio            newline-delimited JSON-RPC 2.0 on stdin/stdout (one client; logs on stderr)\n  --print-schema     print the JSON Schema of every message (versioned) and exit\n  --provider, --model, --permission-mode   defaults for session/new\n\nProtocol: docs/server.md.",
  "serve.runHelp": "Run `chatcli serve --help` for usage.",
  "serve.unknownFlag": "serve: unknown option {flag}",
  "serve.missingValue": "serve: {flag} needs a value",
  "serve.badMode": "serve: --permission-mode must be one of {modes}",
  "serve.needsTransport": "serve: only --stdio is available in this build (HTTP, WebSocket and SSE come later)",
  "serve.log.connected": "serve: {client} connected",
  "serve.log.disconnected": "serve: {client} disconnected",
  "serve.log.request": "serve: request {line}",
  "serve.log.shutdown": "serve: shutting down, saving {count} session(s)",
} as const;
