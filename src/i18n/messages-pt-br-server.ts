/** pt-BR messages of server mode: the same keys as messages-en-server.ts. */
import type { enServer } from "./messages-en-server.ts";

export const ptBRServer: Record<keyof typeof enServer, string> = {
  "args.serve": "Servir sessões a editores e scripts por JSON-RPC 2.0 (docs/server.md)",
  "serve.help":
    "uso: chatcli serve [--host H] [--port N] [--allow-remote] [--tls-cert F --tls-key F] [--insecure]\n                   [--allow-origin O]... [--token-file F] [--provider P] [--model M] [--permission-mode MODO]\n     chatcli serve --stdio [--provider P] [--model M] [--permission-mode MODO]\n     chatcli serve --probe [URL] [--token-file F] [--tls-cert F]\n     chatcli serve --print-schema\n\nTransporte HTTP (padrão): POST /rpc, GET /ws (WebSocket), GET /events (SSE), GET /status; todo pedido exige\n`Authorization: Bearer <token>`. O token é aleatório a cada início e gravado em $CHATCLI_HOME/server/<porta>.token\n(modo 0600, removido na saída).\n  --host H           endereço de escuta (padrão 127.0.0.1; fora do loopback exige --allow-remote)\n  --port N           porta (padrão 7433; 0 escolhe uma livre)\n  --allow-remote     permitir um --host fora do loopback (exige TLS ou --insecure)\n  --tls-cert F, --tls-key F   servir HTTPS/WSS com este certificado e chave (PEM)\n  --insecure         permitir escuta fora do loopback sem TLS (avisa a cada início)\n  --allow-origin O   aceitar pedidos de navegador da origem O (repetível; também settings server.allowedOrigins)\n  --token-file F     usar o token de F em vez de um aleatório (também CHATCLI_SERVER_TOKEN)\n  --probe [URL]      GET URL/status com o token (padrão http://127.0.0.1:7433); sai com 0 quando responde 200\n  --stdio            JSON-RPC 2.0 delimitado por linhas em stdin/stdout (um cliente; logs em stderr)\n  --print-schema     imprimir o JSON Schema de cada mensagem (versionado) e sair\n  --provider, --model, --permission-mode   padrões para session/new\n\nProtocolo: docs/server.md.",
  "serve.runHelp": "Execute `chatcli serve --help` para ver o uso.",
  "serve.unknownFlag": "serve: opção desconhecida {flag}",
  "serve.missingValue": "serve: {flag} precisa de um valor",
  "serve.badMode": "serve: --permission-mode deve ser um de {modes}",
  "serve.log.connected": "serve: {client} conectado",
  "serve.log.disconnected": "serve: {client} desconectado",
  "serve.log.request": "serve: pedido {line}",
  "serve.log.shutdown": "serve: encerrando, salvando {count} sessão(ões)",
};
