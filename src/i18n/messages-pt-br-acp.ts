/** pt-BR messages of `chatcli acp`: the same keys as messages-en-acp.ts. */
import type { enAcp } from "./messages-en-acp.ts";

export const ptBRAcp: Record<keyof typeof enAcp, string> = {
  "args.acp": "Rodar como agente do Agent Client Protocol em stdin/stdout, para editores (Zed, JetBrains, Neovim)",
  "acp.help":
    "uso: chatcli acp [--provider P] [--model M] [--permission-mode default|accept-edits|plan]\n\n  Fala o Agent Client Protocol (agentclientprotocol.com) em stdin/stdout; os logs vão para stderr.\n  Um editor o inicia como comando do agente. As sessões são salvas como sempre: session/load as retoma.\n  --provider, --model        o modelo das novas sessões\n  --permission-mode MODO     o modo em que as sessões começam (bypass nunca é oferecido por ACP)\n\nDetalhes: docs/server.md (seção ACP).",
  "acp.runHelp": "Rode `chatcli acp --help` para ver o uso.",
  "acp.unknownFlag": "acp: opção desconhecida {flag}",
  "acp.missingValue": "acp: {flag} precisa de um valor",
  "acp.badMode": "acp: --permission-mode deve ser um de {modes} (bypass não é oferecido por ACP)",
  "acp.log": "acp: {line}",
  "acp.allowOnce": "Permitir uma vez",
  "acp.allowAlways": "Sempre permitir",
  "acp.rejectOnce": "Recusar",
  "acp.rejectAlways": "Sempre recusar",
  "acp.mode.default": "Padrão",
  "acp.mode.accept-edits": "Aceitar edições",
  "acp.mode.plan": "Planejar",
  "acp.modeHelp.default": "Pergunta antes de edições e comandos que mudam algo",
  "acp.modeHelp.accept-edits": "Edições no projeto são permitidas; comandos ainda perguntam",
  "acp.modeHelp.plan": "Somente leitura: explora e planeja, não muda nada",
} as const;
