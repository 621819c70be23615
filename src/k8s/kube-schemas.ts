/**
 * The slice of the Kubernetes API objects the watcher reads, validated at the wire (zod). Loose objects: a real
 * server sends far more fields, and a missing optional field must not reject the object.
 */
import { z } from "zod";

const str = z.string().optional();
export const Meta = z.looseObject({
  name: z.string(),
  namespace: str,
  labels: z.record(z.string(), z.string()).optional(),
  creationTimestamp: str,
  resourceVersion: str,
});

const Terminated = z.looseObject({ exitCode: z.number().optional(), reason: str, message: str, startedAt: str, finishedAt: str });
const ContainerState = z.looseObject({
  waiting: z.looseObject({ reason: str, message: str }).optional(),
  running: z.looseObject({ startedAt: str }).optional(),
  terminated: Terminated.optional(),
});
export const ContainerStatus = z.looseObject({
  name: z.string(),
  ready: z.boolean().optional(),
  restartCount: z.number().optional(),
  image: str,
  state: ContainerState.optional(),
  lastState: ContainerState.optional(),
});
export const Condition = z.looseObject({ type: z.string(), status: z.string(), reason: str, message: str, lastTransitionTime: str, lastUpdateTime: str });

export const Pod = z.looseObject({
  metadata: Meta,
  spec: z.looseObject({
    nodeName: str,
    containers: z.array(z.looseObject({ name: z.string(), image: str, resources: z.looseObject({ limits: z.record(z.string(), z.string()).optional() }).optional() })).optional(),
  }).optional(),
  status: z.looseObject({ phase: str, reason: str, message: str, conditions: z.array(Condition).optional(), containerStatuses: z.array(ContainerStatus).optional(), initContainerStatuses: z.array(ContainerStatus).optional() }).optional(),
});
export type Pod = z.infer<typeof Pod>;

export const KubeEvent = z.looseObject({
  metadata: Meta,
  type: str,
  reason: str,
  message: str,
  count: z.number().optional(),
  involvedObject: z.looseObject({ kind: str, name: str, namespace: str }).optional(),
  lastTimestamp: z.string().nullable().optional(),
  eventTime: z.string().nullable().optional(),
});
export type KubeEvent = z.infer<typeof KubeEvent>;

export const Deployment = z.looseObject({
  metadata: Meta,
  spec: z.looseObject({ replicas: z.number().optional() }).optional(),
  status: z.looseObject({ replicas: z.number().optional(), readyReplicas: z.number().optional(), updatedReplicas: z.number().optional(), availableReplicas: z.number().optional(), conditions: z.array(Condition).optional() }).optional(),
});
export type Deployment = z.infer<typeof Deployment>;

export const CronJob = z.looseObject({
  metadata: Meta,
  spec: z.looseObject({ schedule: z.string(), suspend: z.boolean().optional(), startingDeadlineSeconds: z.number().optional(), timeZone: str }),
  status: z.looseObject({ lastScheduleTime: str, lastSuccessfulTime: str }).optional(),
});
export type CronJob = z.infer<typeof CronJob>;

export const KubeNode = z.looseObject({ metadata: Meta, status: z.looseObject({ conditions: z.array(Condition).optional() }).optional() });
export type KubeNode = z.infer<typeof KubeNode>;

export const listOf = <T extends z.ZodType>(item: T) => z.looseObject({ items: z.array(item), metadata: z.looseObject({ resourceVersion: str }).optional() });

/** A Status object (the body of a 4xx/5xx answer). */
export const KubeStatus = z.looseObject({ kind: z.literal("Status"), message: str, reason: str, code: z.number().optional() });

const OwnerRef = z.looseObject({ kind: str, name: str });

export const Job = z.looseObject({
  metadata: Meta.extend({ ownerReferences: z.array(OwnerRef).optional() }),
  spec: z.looseObject({ backoffLimit: z.number().optional() }).optional(),
  status: z.looseObject({ failed: z.number().optional(), succeeded: z.number().optional(), active: z.number().optional(), conditions: z.array(Condition).optional() }).optional(),
});
export type Job = z.infer<typeof Job>;

export const ReplicaSet = z.looseObject({
  metadata: Meta.extend({ ownerReferences: z.array(OwnerRef).optional(), annotations: z.record(z.string(), z.string()).optional() }),
  spec: z.looseObject({ replicas: z.number().optional() }).optional(),
  status: z.looseObject({ replicas: z.number().optional(), readyReplicas: z.number().optional(), availableReplicas: z.number().optional() }).optional(),
});
export type ReplicaSet = z.infer<typeof ReplicaSet>;

/** Any object, as the informer stores it: only the metadata is checked at the wire; each finding re-parses its kind. */
export const AnyObject = z.looseObject({ metadata: Meta });
export type AnyObject = z.infer<typeof AnyObject>;

/** One line of a watch stream. `object` is a Status for ERROR, a bare metadata for BOOKMARK. */
export const WatchEvent = z.object({ type: z.enum(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]), object: z.looseObject({ metadata: z.looseObject({ resourceVersion: str }).optional(), code: z.number().optional(), message: str, reason: str }) });
export type WatchEvent = z.infer<typeof WatchEvent>;

/** metrics.k8s.io PodMetrics: current usage per container (quantities such as "250Mi" or "262144Ki"). */
export const PodMetrics = z.looseObject({ metadata: Meta, containers: z.array(z.looseObject({ name: z.string(), usage: z.record(z.string(), z.string()) })) });
