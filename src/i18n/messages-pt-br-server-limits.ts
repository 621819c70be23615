/** pt-BR messages of server mode's limits and faults: the same keys as messages-en-server-limits.ts. */
import type { enServerLimits } from "./messages-en-server-limits.ts";

export const ptBRServerLimits: Record<keyof typeof enServerLimits, string> = {
  "serve.slowClient": "o cliente leu devagar demais: {bytes} bytes esperavam por ele; reconecte e retome com session/load",
  "serve.log.slowClient": "serve: {client} desconectado: lento demais ({bytes} bytes esperando)",
  "serve.log.outputLost": "serve: {client} fechou sua saída: encerrando",
};
