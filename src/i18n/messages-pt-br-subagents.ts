/** pt-BR messages of subagents: the same keys as messages-en-subagents.ts. */
import type { enSubagents } from "./messages-en-subagents.ts";

export const ptBRSubagents: Record<keyof typeof enSubagents, string> = {
  "cmd.agents": "lista os subagentes (`/agents cancel ID` interrompe um)",
  "usage.byAgent": "Por agente:",
  "subagents.none": "Nenhum subagente nesta sessão ainda.",
  "subagents.title": "Subagentes ({running} em execução, {total} no total):",
  "subagents.cancelled": "Subagente {id} cancelado.",
  "subagents.notRunning": "Nenhum subagente {id} em execução.",
};
