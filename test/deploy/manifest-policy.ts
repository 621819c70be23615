/**
 * What the deploy manifests must say, checked on rendered objects (kustomize or helm output): the schema of every
 * object (test/support/k8s-manifest-schema.ts), then the deployment's contract — one replica with Recreate,
 * `chatcli serve` on 0.0.0.0 with --allow-remote and TLS or --insecure, the token from a Secret, /data on a PVC,
 * exec probes through `chatcli serve --probe`, the pod and container security contexts, resources, a Service that
 * selects the pod, a NetworkPolicy that admits only selected peers, and RBAC that is read-only and never touches
 * Secrets or ConfigMaps. `checkManifests` returns the problems; the tests assert it is empty for every rendering and
 * non-empty for broken ones.
 */
import type { V1ConfigMap, V1Deployment, V1NetworkPolicy, V1NetworkPolicyPeer, V1PersistentVolumeClaim, V1PolicyRule, V1RoleBinding, V1Service, V1ServiceAccount } from "@kubernetes/client-node";
import { k8sSchemaValidator } from "../support/k8s-manifest-schema.ts";

export type Obj = Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> } };
// The API's own types for the objects; the schema check (first) is what makes these casts true.
type Role = { kind: string; metadata: { name: string }; rules?: V1PolicyRule[] };

export async function parseManifests(text: string): Promise<Obj[]> {
  const { parseAllDocuments } = await import("yaml");
  return parseAllDocuments(text)
    .map((d) => d.toJSON() as Obj | null)
    .filter((o): o is Obj => o !== null && typeof o === "object");
}

export interface Expect {
  port?: number;
  /** TLS in the pod (else --insecure). */
  tls: boolean;
  /** ServiceAccount + RBAC for the watcher are rendered. */
  watcher: boolean;
  /** The PVC is rendered with the rest (not an existing claim). */
  pvc: boolean;
}

const READ_VERBS = new Set(["get", "list", "watch"]);
const FORBIDDEN_RESOURCES = new Set(["secrets", "configmaps", "pods/exec", "pods/attach", "pods/portforward", "serviceaccounts/token", "*"]);

export async function checkManifests(objs: Obj[], want: Expect): Promise<string[]> {
  const port = want.port ?? 7433;
  const problems: string[] = [];
  const bad = (what: string) => problems.push(what);
  const schema = await k8sSchemaValidator();
  for (const o of objs) for (const p of schema.validate(o)) bad(`${o.kind}/${o.metadata?.name}: ${p}`);
  const of = <T>(kind: string) => objs.filter((o) => o.kind === kind) as unknown as T[];

  const deployments = of<V1Deployment>("Deployment");
  if (deployments.length !== 1) return [...problems, `expected one Deployment, got ${deployments.length}`];
  const d = deployments[0]!;
  if (!d.spec?.template.spec) return [...problems, "Deployment: no pod spec"];
  const pod = d.spec.template.spec;
  const podLabels = d.spec.template.metadata?.labels ?? {};
  if (d.spec.replicas !== 1) bad("Deployment: replicas must be 1 (one writer per PVC)");
  if (d.spec.strategy?.type !== "Recreate") bad("Deployment: strategy must be Recreate");
  if (!selects(d.spec.selector?.matchLabels, podLabels)) bad("Deployment: selector does not match the pod labels");
  const psc = pod.securityContext ?? {};
  if (psc.runAsNonRoot !== true) bad("pod: runAsNonRoot");
  if (psc.runAsUser !== 65532) bad("pod: runAsUser 65532");
  if (psc.seccompProfile?.type !== "RuntimeDefault") bad("pod: seccompProfile RuntimeDefault");
  if (pod.enableServiceLinks !== false) bad("pod: enableServiceLinks false (service env vars such as OLLAMA_PORT leak in)");

  if (pod.containers.length !== 1) bad(`pod: expected one container, got ${pod.containers.length}`);
  const c = pod.containers[0] ?? { name: "" };
  const argv = [...(c.command ?? []), ...(c.args ?? [])];
  const serveAt = argv.findIndex((w, i) => /(^|\/)chatcli$/.test(w) && argv[i + 1] === "serve");
  if (serveAt < 0) bad(`container: does not run chatcli serve (${argv.join(" ")})`);
  const flag = (f: string) => argv[argv.indexOf(f) + 1];
  if (flag("--host") !== "0.0.0.0") bad("container: --host 0.0.0.0");
  if (flag("--port") !== String(port)) bad(`container: --port ${port}`);
  if (!argv.includes("--allow-remote")) bad("container: --allow-remote");
  const hasTls = argv.includes("--tls-cert") && argv.includes("--tls-key");
  if (want.tls !== hasTls) bad(`container: TLS flags ${hasTls ? "present" : "absent"}, expected ${want.tls ? "present" : "absent"}`);
  if (argv.includes("--insecure") === want.tls) bad("container: --insecure exactly when TLS is not in the pod");
  if (!(c.ports ?? []).some((p) => p.containerPort === port)) bad(`container: port ${port}`);

  const csc = c.securityContext ?? {};
  if (csc.readOnlyRootFilesystem !== true) bad("container: readOnlyRootFilesystem");
  if (csc.allowPrivilegeEscalation !== false) bad("container: allowPrivilegeEscalation false");
  if (csc.privileged === true) bad("container: privileged");
  if (!(csc.capabilities?.drop ?? []).includes("ALL")) bad("container: drop ALL capabilities");
  if (csc.capabilities?.add?.length) bad("container: adds capabilities");
  if (csc.runAsNonRoot === false || (csc.runAsUser !== undefined && csc.runAsUser === 0)) bad("container: runs as root");
  for (const kind of ["requests", "limits"] as const) for (const r of ["cpu", "memory"]) if (!c.resources?.[kind]?.[r]) bad(`container: resources.${kind}.${r}`);

  const env = new Map((c.env ?? []).map((e) => [e.name, e]));
  const token = env.get("CHATCLI_SERVER_TOKEN");
  if (!token?.valueFrom?.secretKeyRef?.name || token.value !== undefined) bad("container: CHATCLI_SERVER_TOKEN must come from a Secret");
  for (const [name, e] of env) if (/(_API_KEY|TOKEN|SECRET|PASSWORD)$/.test(name) && e.value !== undefined) bad(`container: ${name} is a literal value, not a Secret reference`);
  const mounts = new Map((c.volumeMounts ?? []).map((m) => [m.mountPath, m]));
  const volumes = new Map((pod.volumes ?? []).map((v) => [v.name, v]));
  const volumeAt = (path: string) => volumes.get(mounts.get(path)?.name ?? "");
  const home = env.get("HOME")?.value;
  const chatcliHome = env.get("CHATCLI_HOME")?.value;
  if (home !== "/data") bad("container: HOME=/data");
  if (!chatcliHome?.startsWith("/data/")) bad("container: CHATCLI_HOME on the /data volume");
  const data = volumeAt("/data");
  if (!data) bad("container: nothing mounted on /data");
  else if (want.pvc) {
    const claim = data.persistentVolumeClaim?.claimName;
    const pvc = of<V1PersistentVolumeClaim>("PersistentVolumeClaim").find((p) => p.metadata?.name === claim);
    if (!pvc) bad(`/data: claim ${claim} is not among the objects`);
    else if (!pvc.spec?.resources?.requests?.storage) bad("PVC: no storage request");
  }
  const tmpdir = env.get("TMPDIR")?.value;
  if (!tmpdir || !volumeAt(tmpdir)?.emptyDir) bad("container: TMPDIR on an emptyDir (the root filesystem is read-only)");

  const probeUrl = `${want.tls ? "https" : "http"}://127.0.0.1:${port}`;
  for (const kind of ["readinessProbe", "livenessProbe"] as const) {
    const cmd = c[kind]?.exec?.command ?? [];
    if (cmd[0] !== "chatcli" || cmd[1] !== "serve" || cmd[2] !== "--probe" || cmd[3] !== probeUrl) bad(`${kind}: expected exec chatcli serve --probe ${probeUrl}, got ${JSON.stringify(cmd)}`);
    const trusted = cmd[cmd.indexOf("--tls-cert") + 1] ?? "";
    const certDir = (flag("--tls-cert") ?? "").replace(/\/[^/]+$/, "/");
    if (want.tls && (!cmd.includes("--tls-cert") || !trusted.startsWith(certDir))) bad(`${kind}: must trust a certificate from the server's TLS Secret`);
  }
  if (want.tls) {
    const cert = flag("--tls-cert") ?? "";
    const tlsMount = [...mounts.entries()].find(([path]) => cert.startsWith(`${path}/`));
    if (!tlsMount || !volumes.get(tlsMount[1].name)?.secret?.secretName) bad("container: --tls-cert is not on a mounted Secret");
  }

  const services = of<V1Service>("Service");
  if (services.length !== 1) bad(`expected one Service, got ${services.length}`);
  for (const s of services) {
    if (!selects(s.spec?.selector, podLabels)) bad("Service: selector does not match the pod");
    const ports = s.spec?.ports ?? [];
    const named = (c.ports ?? []).find((p) => p.containerPort === port)?.name;
    if (!ports.some((p) => p.port === port && (p.targetPort === port || (named && p.targetPort === named)))) bad("Service: no port forwarding to the server's port");
  }

  const policies = of<V1NetworkPolicy>("NetworkPolicy");
  if (policies.length !== 1) bad(`expected one NetworkPolicy, got ${policies.length}`);
  for (const np of policies) {
    const spec = np.spec ?? { podSelector: {} };
    if (!selects(spec.podSelector?.matchLabels, podLabels)) bad("NetworkPolicy: podSelector does not select the pod");
    const types = spec.policyTypes ?? [];
    if (!types.includes("Ingress") || !types.includes("Egress")) bad("NetworkPolicy: policyTypes Ingress and Egress");
    for (const rule of spec.ingress ?? []) {
      // JSON's `from` (the generated type calls it `_from`).
      if (!(rule as { from?: unknown[] }).from?.length) bad("NetworkPolicy: an ingress rule without `from` admits everyone");
      if (!(rule.ports ?? []).every((p) => p.port === port)) bad("NetworkPolicy: ingress to a port other than the server's");
    }
    const egress = spec.egress ?? [];
    if (!egress.some((r) => (r.ports ?? []).some((p) => p.port === 53))) bad("NetworkPolicy: no DNS egress");
    if (egress.some((r) => !r.to?.length)) bad("NetworkPolicy: an egress rule without `to` opens everything");
    // A peer selector carrying this release's instance label selects chatcli itself, not the peer (kustomize's
    // includeSelectors does that to every podSelector).
    const instance = podLabels["app.kubernetes.io/instance"];
    const froms = (spec.ingress ?? []).flatMap((x) => (x as { from?: V1NetworkPolicyPeer[] }).from ?? []);
    for (const r of [...froms, ...egress.flatMap((x) => x.to ?? [])])
      if (instance && r.podSelector?.matchLabels?.["app.kubernetes.io/instance"] === instance) bad(`NetworkPolicy: a peer selector was rewritten to chatcli's own labels: ${JSON.stringify(r.podSelector)}`);
  }

  const roles = [...of<Role>("ClusterRole"), ...of<Role>("Role")];
  const bindings = [...of<V1RoleBinding>("ClusterRoleBinding"), ...of<V1RoleBinding>("RoleBinding")];
  const accounts = of<V1ServiceAccount>("ServiceAccount");
  if (want.watcher !== roles.length > 0) bad(`RBAC: ${roles.length} roles, expected ${want.watcher ? "some" : "none"}`);
  for (const r of roles)
    for (const rule of r.rules ?? []) {
      for (const res of rule.resources ?? []) if (FORBIDDEN_RESOURCES.has(res)) bad(`${r.kind} ${r.metadata.name}: grants ${res}`);
      for (const v of rule.verbs ?? []) if (!READ_VERBS.has(v)) bad(`${r.kind} ${r.metadata.name}: verb ${v} is not read-only`);
      if ((rule.apiGroups ?? []).includes("*")) bad(`${r.kind} ${r.metadata.name}: apiGroups *`);
      if (rule.resourceNames?.length === 0) bad(`${r.kind} ${r.metadata.name}: empty resourceNames`);
    }
  for (const b of bindings) {
    const name = `${b.kind} ${b.metadata?.name}`;
    if (!roles.some((r) => r.kind === b.roleRef.kind && r.metadata.name === b.roleRef.name)) bad(`${name}: role ${b.roleRef.name} not among the objects`);
    for (const s of b.subjects ?? []) {
      if (s.kind !== "ServiceAccount" || s.name !== pod.serviceAccountName) bad(`${name}: subject ${s.kind}/${s.name} is not the pod's ServiceAccount`);
      if (!s.namespace) bad(`${name}: subject without namespace`);
    }
  }
  if (want.watcher) {
    if (!accounts.some((a) => a.metadata?.name === pod.serviceAccountName)) bad("watcher: the pod's ServiceAccount is not among the objects");
    if (pod.automountServiceAccountToken !== true) bad("watcher: the ServiceAccount token must be mounted");
    const kc = env.get("KUBECONFIG")?.value;
    const dir = kc?.slice(0, kc.lastIndexOf("/"));
    const cmName = dir ? volumeAt(dir)?.configMap?.name : undefined;
    const cm = of<V1ConfigMap>("ConfigMap").find((m) => m.metadata?.name === cmName);
    if (!kc || !cm?.data?.[kc.slice(kc.lastIndexOf("/") + 1)]) bad("watcher: KUBECONFIG does not name a kubeconfig mounted from a ConfigMap");
  } else if (pod.automountServiceAccountToken !== false) bad("pod: automountServiceAccountToken false without the watcher");
  return problems;
}

/** The in-cluster kubeconfig text the watcher uses (for the test that runs it against the fake API server). */
export function kubeconfigOf(objs: Obj[]): string | undefined {
  const pod = (objs.find((o) => o.kind === "Deployment") as unknown as V1Deployment | undefined)?.spec?.template.spec;
  const c = pod?.containers[0];
  const kc = c?.env?.find((e) => e.name === "KUBECONFIG")?.value;
  if (!kc) return undefined;
  const dir = kc.slice(0, kc.lastIndexOf("/"));
  const mount = c?.volumeMounts?.find((m) => m.mountPath === dir);
  const vol = pod?.volumes?.find((v) => v.name === mount?.name);
  const cm = objs.find((o) => o.kind === "ConfigMap" && o.metadata.name === vol?.configMap?.name) as unknown as V1ConfigMap | undefined;
  return cm?.data?.[kc.slice(kc.lastIndexOf("/") + 1)];
}

function selects(selector: Record<string, string> | undefined, labels: Record<string, string>): boolean {
  if (!selector || !Object.keys(selector).length) return false;
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}
