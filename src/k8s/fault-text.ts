/**
 * What a fault means for the person watching, in their language: which server/context/namespace, and what to do —
 * log in again (401), the permission to ask for with a `kubectl auth can-i` line to check it (403), the CA (TLS).
 */
import { t } from "../i18n/i18n.ts";
import type { KubeFault } from "./snapshot.ts";

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
