/**
 * What a fault means for the person watching, in their language: which server/context/namespace, and what to do —
 * log in again (401), the permission to ask for with a `kubectl auth can-i` line to check it (403), the CA (TLS).
 */
import { t } from "../i18n/i18n.ts";
import { KubeError } from "./kube-client.ts";
import { faultOf, type KubeFault } from "./snapshot.ts";
import type { WatchUpdate } from "./watch-loop.ts";

export interface FaultWhere {
  context: string;
  namespace: string;
  server: string;
}

export function faultText(f: KubeFault, where: FaultWhere): string {
  const p = { ...where, resource: f.resource, message: f.message, namespace: f.namespace ?? where.namespace };
  switch (f.kind) {
    case "unreachable":
      return t("k8s.fault.unreachable", p);
    case "tls":
      return t("k8s.fault.tls", p);
    case "unauthorized":
      return t("k8s.fault.unauthorized", p);
    case "forbidden": {
      const verb = f.verb ?? /cannot (\w+) resource/.exec(f.message)?.[1] ?? "list";
      const clusterScope = f.resource === "nodes" || /at the cluster scope/.test(f.message);
      return t(clusterScope ? "k8s.fault.forbiddenCluster" : "k8s.fault.forbidden", { ...p, verb });
    }
    case "notFound":
      return t("k8s.fault.notFound", p);
    default:
      return t("k8s.fault.other", p);
  }
}

/**
 * The sentence for a watch update that is not findings — a fault (said once by the loop), an outage with its retry
 * delay, the recovery — shared by `chatcli watch` (stderr) and the session's notices, so both say the same thing.
 */
export function updateText(u: WatchUpdate, where: FaultWhere): string | undefined {
  if (u.type === "fault") return faultText(u.fault, where);
  if (u.type === "unreadable") return t("k8s.fault.retrying", { text: outageText(u, where), seconds: String(Math.round(u.retryInMs / 1000)) });
  if (u.type === "recovered") return t("k8s.fault.recovered", { ...where });
  return undefined;
}

/** An outage ("unreadable") as the fault of the resource that failed first. */
export function outageText(u: Extract<WatchUpdate, { type: "unreadable" }>, where: FaultWhere): string {
  const kind = u.kind === "error" ? "http" : (u.kind as KubeError["kind"]);
  return faultText(faultOf(u.resource ?? "pods", new KubeError(kind, u.message, ""), where.namespace), where);
}
