/** What the k8s_* tools need from the active watch: its client and default namespace. Errors become model text. */
import type { KubeClient } from "../kube-client.ts";
import { KubeError } from "../kube-client.ts";
import { errorOutput, type ToolOutput } from "../../tool/tool.ts";
import { KNOWN_KINDS, kindInfo, SECRET_KIND, type KindInfo } from "./kinds.ts";

export interface K8sToolEnv {
  /** Undefined once the watch stopped (the tools are unregistered then; a call in flight gets an error). */
  client(): KubeClient | undefined;
  /** The watch's namespace: the default for every call. */
  namespace(): string;
  now(): number;
}

export const SECRETS_REFUSED = "chatcli never reads Secrets, not even their names (a read-only watcher does not ask for the secrets resource). Ask the user to check the Secret themselves if it matters.";

export function noWatch(): ToolOutput {
  return errorOutput("No Kubernetes watch is active (the user stopped it). Ask the user to start one with /watch.", "no_watch");
}

/** A KubeError in words the model can act on (what failed, and for RBAC what permission is missing). */
export function kubeErrorOutput(err: unknown, what: string): ToolOutput {
  if (!(err instanceof KubeError)) return errorOutput(`${what} failed: ${(err as Error)?.message ?? String(err)}`, "k8s_error");
  const hint: Record<string, string> = {
    forbidden: " The watcher's credentials lack this permission (RBAC); do not retry, tell the user which permission is missing.",
    notFound: " Check the name and namespace (k8s_get with a selector or without a name lists what exists).",
    unauthorized: " The credentials were rejected or expired; the user must log in to the cluster again.",
    unreachable: " The API server did not answer.",
    tls: " The server's certificate did not verify against the kubeconfig's CA.",
  };
  return errorOutput(`${what} failed (${err.kind}${err.status ? ` ${err.status}` : ""}): ${err.message}.${hint[err.kind] ?? ""}`, `k8s_${err.kind}`);
}

/** An object, namespace, pod or container name as Kubernetes allows it (no `/`, no `..` segments): checked before any path is built. */
export const K8S_NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/**
 * What k8s_get and k8s_describe start with: the kind (never Secrets), the watch's client and the namespace — or the
 * error output the model gets instead.
 */
export function targetOf(env: K8sToolEnv, kind: string, namespace: string | undefined): { info: KindInfo; client: KubeClient; ns: string } | ToolOutput {
  if (SECRET_KIND.test(kind.trim())) return errorOutput(SECRETS_REFUSED, "secrets_refused");
  const info = kindInfo(kind);
  if (!info) return errorOutput(`Unknown kind "${kind}". Known kinds: ${KNOWN_KINDS.join(", ")}.`, "invalid_args");
  const client = env.client();
  if (!client) return noWatch();
  return { info, client, ns: namespace ?? env.namespace() };
}
