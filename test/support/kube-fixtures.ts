/**
 * Kubernetes objects in each failure state the watcher must find, shaped as a real API server returns them
 * (only the fields that matter, plus managedFields to prove they are dropped). NOW is the clock the tests pass in.
 */
import type { KubeObject, KubeState } from "./fake-kube-api.ts";

export const NOW = Date.parse("2026-12-02T01:00:00Z");
const NS = "shop";

function pod(name: string, status: Record<string, unknown>, o: { app?: string; ns?: string } = {}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: o.ns ?? NS, labels: { app: o.app ?? "api" }, resourceVersion: "1", managedFields: [{ manager: "kubectl" }] },
    spec: { containers: [{ name: "app", image: "shop/api:1.2", resources: { limits: { memory: "256Mi" } } }], nodeName: "node-a" },
    status,
  };
}

/** The objects, their times relative to `now` (the compiled binary's tests pass the real clock). */
export function kubeFixtures(now = NOW): Partial<KubeState> {
  const ago = (s: number) => new Date(now - s * 1000).toISOString();
  const running = { state: { running: { startedAt: ago(3600) } }, ready: true, restartCount: 0 };
  return {
    pods: [
      pod("api-healthy", { phase: "Running", containerStatuses: [{ name: "app", ...running }] }),
      pod("api-crash", {
        phase: "Running",
        containerStatuses: [{
          name: "app", ready: false, restartCount: 7,
          state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 5m0s restarting failed container=app pod=api-crash" } },
          lastState: { terminated: { exitCode: 1, reason: "Error", startedAt: ago(400), finishedAt: ago(380) } },
        }],
      }),
      pod("api-oom", {
        phase: "Running",
        containerStatuses: [{
          name: "app", ready: true, restartCount: 2, state: { running: { startedAt: ago(60) } },
          lastState: { terminated: { exitCode: 137, reason: "OOMKilled", startedAt: ago(900), finishedAt: ago(61) } },
        }],
      }),
      pod("api-image", {
        phase: "Pending",
        containerStatuses: [{ name: "app", ready: false, restartCount: 0, image: "shop/api:nope", state: { waiting: { reason: "ImagePullBackOff", message: "Back-off pulling image \"shop/api:nope\"" } } }],
      }),
      pod("api-errimage", {
        phase: "Pending",
        containerStatuses: [{ name: "app", ready: false, restartCount: 0, state: { waiting: { reason: "ErrImagePull", message: "rpc error: manifest unknown" } } }],
      }),
      pod("api-pending", {
        phase: "Pending",
        conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message: "0/3 nodes are available: 3 Insufficient memory.", lastTransitionTime: ago(600) }],
      }),
      pod("api-unready", {
        phase: "Running",
        conditions: [{ type: "Ready", status: "False", reason: "ContainersNotReady", lastTransitionTime: ago(300) }],
        containerStatuses: [{ name: "app", ready: false, restartCount: 0, state: { running: { startedAt: ago(900) } } }],
      }),
      pod("api-storm", {
        phase: "Running",
        containerStatuses: [{ name: "app", ready: true, restartCount: 12, state: { running: { startedAt: ago(30) } }, lastState: { terminated: { exitCode: 2, reason: "Error", finishedAt: ago(31) } } }],
      }),
    ],
    events: [
      { kind: "Event", metadata: { name: "api-unready.1", namespace: NS }, type: "Warning", reason: "Unhealthy", message: "Readiness probe failed: HTTP probe failed with statuscode: 503", count: 14, involvedObject: { kind: "Pod", name: "api-unready", namespace: NS }, lastTimestamp: ago(20) },
      { kind: "Event", metadata: { name: "api-crash.1", namespace: NS }, type: "Warning", reason: "BackOff", message: "Back-off restarting failed container app", count: 30, involvedObject: { kind: "Pod", name: "api-crash", namespace: NS }, lastTimestamp: ago(10) },
      { kind: "Event", metadata: { name: "api-healthy.1", namespace: NS }, type: "Normal", reason: "Pulled", message: "Container image already present", involvedObject: { kind: "Pod", name: "api-healthy", namespace: NS }, lastTimestamp: ago(3600) },
    ],
    deployments: [
      {
        kind: "Deployment", metadata: { name: "api", namespace: NS, labels: { app: "api" } },
        spec: { replicas: 3, selector: { matchLabels: { app: "api" } }, progressDeadlineSeconds: 600 },
        status: { replicas: 3, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [{ type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded", message: "ReplicaSet \"api-7d9\" has timed out progressing.", lastUpdateTime: ago(120) }] },
      },
      { kind: "Deployment", metadata: { name: "web", namespace: NS, labels: { app: "web" } }, spec: { replicas: 2, selector: { matchLabels: { app: "web" } } }, status: { replicas: 2, readyReplicas: 2, availableReplicas: 2, conditions: [{ type: "Progressing", status: "True", reason: "NewReplicaSetAvailable" }] } },
    ],
    cronjobs: [
      // Every 5 minutes, last ran 2 hours ago: 20+ missed schedules.
      { kind: "CronJob", metadata: { name: "report", namespace: NS, labels: { app: "api" }, creationTimestamp: ago(86400) }, spec: { schedule: "*/5 * * * *", suspend: false }, status: { lastScheduleTime: ago(7200), lastSuccessfulTime: ago(7200) } },
      { kind: "CronJob", metadata: { name: "fresh", namespace: NS, labels: { app: "api" }, creationTimestamp: ago(86400) }, spec: { schedule: "0 * * * *" }, status: { lastScheduleTime: ago(600) } },
      { kind: "CronJob", metadata: { name: "paused", namespace: NS, labels: { app: "api" }, creationTimestamp: ago(86400) }, spec: { schedule: "*/5 * * * *", suspend: true }, status: { lastScheduleTime: ago(86000) } },
    ],
    nodes: [
      { kind: "Node", metadata: { name: "node-a" }, status: { conditions: [{ type: "Ready", status: "True" }, { type: "MemoryPressure", status: "True", reason: "KubeletHasInsufficientMemory", message: "kubelet has insufficient memory available", lastTransitionTime: ago(300) }, { type: "DiskPressure", status: "False" }] } },
      { kind: "Node", metadata: { name: "node-b" }, status: { conditions: [{ type: "Ready", status: "Unknown", reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status.", lastTransitionTime: ago(900) }] } },
      { kind: "Node", metadata: { name: "node-c" }, status: { conditions: [{ type: "Ready", status: "True" }, { type: "DiskPressure", status: "True", reason: "KubeletHasDiskPressure" }, { type: "PIDPressure", status: "True", reason: "KubeletHasInsufficientPID" }] } },
    ],
    replicasets: [
      { kind: "ReplicaSet", metadata: { name: "api-7d9", namespace: NS, labels: { app: "api" }, annotations: { "deployment.kubernetes.io/revision": "2" }, ownerReferences: [{ kind: "Deployment", name: "api" }] }, spec: { replicas: 1 }, status: { replicas: 1, readyReplicas: 0 } },
      { kind: "ReplicaSet", metadata: { name: "api-5c4", namespace: NS, labels: { app: "api" }, annotations: { "deployment.kubernetes.io/revision": "1" }, ownerReferences: [{ kind: "Deployment", name: "api" }] }, spec: { replicas: 2 }, status: { replicas: 2, readyReplicas: 1 } },
    ],
    jobs: [
      { kind: "Job", metadata: { name: "report-29876", namespace: NS, labels: { app: "api" }, ownerReferences: [{ kind: "CronJob", name: "report" }] }, spec: { backoffLimit: 6 }, status: { failed: 7, conditions: [{ type: "Failed", status: "True", reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" }] } },
      { kind: "Job", metadata: { name: "migrate", namespace: NS, labels: { app: "api" } }, status: { succeeded: 1, conditions: [{ type: "Complete", status: "True" }] } },
    ],
    // metrics-server's view (served only when the fake runs with metricsServer: true): usage in Ki, as it reports it.
    podmetrics: [{ kind: "PodMetrics", metadata: { name: "api-oom", namespace: NS }, timestamp: ago(15), window: "30s", containers: [{ name: "app", usage: { cpu: "12m", memory: "250880Ki" } }] }],
    secrets: [{ kind: "Secret", metadata: { name: "db-password", namespace: NS }, data: { password: "aHVudGVyMg==" } }],
    logs: {
      [`${NS}/api-crash/app`]: {
        current: "starting api v1.2\n",
        previous: Array.from({ length: 80 }, (_, i) => `line ${i + 1}`).join("\n") + "\npanic: cannot connect to db at db:5432: connection refused\n",
      },
    },
  };
}
