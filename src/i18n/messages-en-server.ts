/** English messages of server mode (issue 22): `chatcli serve`. */
export const enServer = {
  "args.serve": "Serve sessions to editors and scripts over JSON-RPC 2.0 (docs/server.md)",
  "serve.help":
    "usage: chatcli serve [--host H] [--port N] [--allow-remote] [--tls-cert F --tls-key F] [--insecure]\n                     [--allow-origin O]... [--token-file F] [--provider P] [--model M] [--permission-mode MODE]\n       chatcli serve --stdio [--provider P] [--model M] [--permission-mode MODE]\n       chatcli serve --probe [URL] [--token-file F] [--tls-cert F]\n       chatcli serve --print-schema\n\nHTTP transport (default): POST /rpc, GET /ws (WebSocket), GET /events (SSE), GET /status; every request needs\n`Authorization: Bearer <token>`. The token is random per start and written to $CHATCLI_HOME/server/<port>.token\n(mode 0600, removed on exit).\n  --host H           address to listen on (default 127.0.0.1; non-loopback needs --allow-remote)\n  --port N           port (default 7433; 0 picks a free one)\n  --allow-remote     allow a non-loopback --host (needs TLS or --insecure)\n  --tls-cert F, --tls-key F   serve HTTPS/WSS with this certificate and key (PEM)\n  --insecure         allow a non-loopback bind without TLS (warns at every start)\n  --allow-origin O   accept browser requests from origin O (repeatable; also settings server.allowedOrigins)\n  --token-file F     use the token in F instead of a random one (also CHATCLI_SERVER_TOKEN)\n  --probe [URL]      GET URL/status with the token (default http://127.0.0.1:7433); exit 0 when it answers 200\n  --stdio            newline-delimited JSON-RPC 2.0 on stdin/stdout (one client; logs on stderr)\n  --print-schema     print the JSON Schema of every message (versioned) and exit\n  --provider, --model, --permission-mode   defaults for session/new\n\nProtocol: docs/server.md.",
  "serve.runHelp": "Run `chatcli serve --help` for usage.",
  "serve.unknownFlag": "serve: unknown option {flag}",
  "serve.missingValue": "serve: {flag} needs a value",
  "serve.badMode": "serve: --permission-mode must be one of {modes}",
  "serve.log.connected": "serve: {client} connected",
  "serve.log.disconnected": "serve: {client} disconnected",
  "serve.log.request": "serve: request {line}",
  "serve.log.shutdown": "serve: shutting down, saving {count} session(s)",
} as const;
