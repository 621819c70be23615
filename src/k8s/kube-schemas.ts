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
