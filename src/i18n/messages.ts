/**
 * The one message table. Every user-facing string goes through `t(key, params)`.
 * English (messages-en.ts) is the source; pt-BR (messages-pt-br.ts) must have every key (a test checks).
 */
import { en } from "./messages-en.ts";

export { en };
export type MessageKey = keyof typeof en;
export { ptBR } from "./messages-pt-br.ts";
