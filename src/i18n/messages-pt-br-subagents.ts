/** pt-BR messages of subagents: the same keys as messages-en-subagents.ts. */
import type { enSubagents } from "./messages-en-subagents.ts";

export const ptBRSubagents: Record<keyof typeof enSubagents, string> = {
  "cmd.agents": "os subagentes: um seletor (transcrição, cancelar um); `/agents list`, `/agents cancel ID`",
  "usage.byAgent": "Por agente:",
  "subagents.none": "Nenhum subagente nesta sessão ainda.",
  "subagents.title": "Subagentes ({running} em execução, {total} no total):",
  "subagents.cancelled": "Subagente {id} cancelado.",
  "subagents.notRunning": "Nenhum subagente {id} em execução.",
  "subagents.pickerTitle": "Subagentes — Enter: abrir",
  "subagents.showTranscript": "Mostrar a transcrição",
  "subagents.cancelOne": "Cancelar este subagente",
  "subagents.transcriptTitle": "Transcrição de {agent} ({id}) · {description} · {status}",
  "subagents.noTranscript": "(nenhuma transcrição salva para este subagente)",
  "help.agentsPicker": "/agents        escolhe um subagente: mostra a transcrição, ou cancela só ele enquanto roda",
};
