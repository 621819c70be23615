/** Redação em português das falhas do observador de Kubernetes (src/k8s/fault-text.ts), composta em messages-pt-br.ts. */
import type { enK8sFaults } from "./messages-en-k8s-faults.ts";

export const ptBRK8sFaults: Record<keyof typeof enK8sFaults, string> = {
  "k8s.fault.unreachable": "não foi possível alcançar o servidor de API do Kubernetes {server} (contexto {context}, namespace {namespace}): {message}",
  "k8s.fault.tls": "o servidor de API {server} falhou na verificação TLS contra a autoridade certificadora do kubeconfig (contexto {context}, namespace {namespace}): {message}. Confira o certificate-authority(-data) do cluster no kubeconfig.",
  "k8s.fault.unauthorized": "o servidor de API {server} recusou as credenciais (401: expiradas ou inválidas) (contexto {context}, namespace {namespace}). Faça login de novo com seu provedor (por exemplo, o comando get-credentials / update-kubeconfig dele) ou renove o token.",
  "k8s.fault.forbidden": "permissão negada: não é possível {verb} {resource} no namespace {namespace} (contexto {context}). Confira com: kubectl auth can-i {verb} {resource} -n {namespace} --context {context} — {message}",
  "k8s.fault.forbiddenCluster": "permissão negada: não é possível {verb} {resource} no escopo do cluster (contexto {context}). Confira com: kubectl auth can-i {verb} {resource} --context {context} — {message}",
  "k8s.fault.notFound": "{resource}: não encontrado no namespace {namespace} (contexto {context}): {message}",
  "k8s.fault.other": "{resource}: {message} (contexto {context}, namespace {namespace})",
  "k8s.fault.retrying": "{text} — nova tentativa em {seconds}s",
  "k8s.fault.recovered": "o servidor de API do Kubernetes {server} voltou a responder (contexto {context}, namespace {namespace})",
};
