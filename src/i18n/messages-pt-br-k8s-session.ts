/** Mensagens em português do observador de Kubernetes dentro de uma sessão (issue 23: /watch, o segmento de status, --analyze). */
import type { enK8sSession } from "./messages-en-k8s-session.ts";

export const ptBRK8sSession: Record<keyof typeof enK8sSession, string> = {
  "k8s.counts": "{critical} críticos {warning} avisos",
  "k8s.ago": "há {seconds}s",
  "k8s.checking": "verificando…",
  "k8s.newFindings": "⎈ {count} novo(s) achado(s): {list}",
  "k8s.moreFindings": "e mais {count}",
  "k8s.startFailed": "⎈ O observador de Kubernetes não pôde iniciar: {message}",
  "k8s.started": "⎈ Observando {context}/{namespace}{scope} a cada {seconds}s. O agente pode ler o cluster com k8s_get, k8s_logs, k8s_events, k8s_describe.",
  "k8s.stopped": "⎈ O observador de Kubernetes parou.",
  "k8s.notWatching": "Nenhum observador de Kubernetes ativo. Inicie um: /watch [--context C] [--namespace N] [--deployment D | --selector L] [--interval 30s]",
  "k8s.slashUsage": "Uso: /watch [--context C] [--namespace N] [--deployment D | --selector L] [--interval 30s] | /watch status | /watch stop",
  "cmd.watchArgs": "Observa um namespace ou deployment do Kubernetes: /watch [--namespace N] [--deployment D] | status | stop",
  "perm.k8sReadOnly": "leitura somente-leitura do cluster Kubernetes observado",
  "watch.analyzeNoModel": "watch --analyze precisa de um modelo: {message}",
};
