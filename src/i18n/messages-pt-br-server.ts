/** pt-BR messages of server mode: the same keys as messages-en-server.ts. */
import type { enServer } from "./messages-en-server.ts";

export const ptBRServer: Record<keyof typeof enServer, string> = {
  "args.serve": "Servir sessões a editores e scripts por JSON-RPC 2.0 (docs/server.md)",
  "serve.help":
    "uso: chatcli serve --stdio [--provider P] [--model M] [--permission-mode MODO]\n     chatcli serve --print-schema\n\n  --stdio            JSON-RPC 2.0 delimitado por linhas em stdin/stdout (um cliente; logs em stderr)\n  --print-schema     imprimir o JSON Schema de cada mensagem (versionado) e sair\n  --provider, --model, --permission-mode   padrões para session/new\n\nProtocolo: docs/server.md.",
  "serve.runHelp": "Execute `chatcli serve --help` para ver o uso.",
  "serve.unknownFlag": "serve: opção desconhecida {flag}",
  "serve.missingValue": "serve: {flag} precisa de um valor",
  "serve.badMode": "serve: --permission-mode deve ser um de {modes}",
  "serve.needsTransport": "serve: só --stdio está disponível nesta versão (HTTP, WebSocket e SSE virão depois)",
  "serve.log.connected": "serve: {client} conectado",
  "serve.log.disconnected": "serve: {client} desconectado",
  "serve.log.request": "serve: pedido {line}",
  "serve.log.shutdown": "serve: encerrando, salvando {count} sessão(ões)",
};
