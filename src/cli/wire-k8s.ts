/**
 * The Kubernetes watch's place in a session (issue 23). Nothing of src/k8s is imported here (types only): the
 * runtime (src/k8s/session-watch.ts) is loaded with `await import()` the first time `/watch` runs or, with settings
 * `k8s.watch`, when start() is called (the TUI: after its first frame) or before the first model call at the latest.
 * A session without either pays one property read.
 */
import type { SessionWatch, WatchSpec } from "../k8s/session-watch.ts";
import type { AgentEvent } from "../protocol/events.ts";
import type { ToolDefinition } from "../tool/tool.ts";
import type { Settings } from "../config/settings-schema.ts";

export interface K8sSlot {
  /** For the tool host: the k8s_* tools while a watch is active. */
  readonly dynamicTools: { tools(): readonly ToolDefinition[]; find(name: string): ToolDefinition | undefined };
  /** The system prompt addendum while a watch is active. */
  promptPart(): string | undefined;
  /** settings `k8s.watch` is set. */
  readonly configured: boolean;
  /** Starts the configured watch once (later calls wait for the same start); no-op when not configured. */
  start(): Promise<void>;
  /** The runtime, loaded on first use. */
  load(): Promise<SessionWatch>;
  /** The runtime if loaded. */
  current(): SessionWatch | undefined;
}

export interface K8sSlotOptions {
  settings: Settings["k8s"];
  env: Record<string, string | undefined>;
  home: string;
  publish(e: AgentEvent): void;
}

/** `30s`, `2m`, `500ms`, `1h`, a bare number = seconds. */
export function intervalMs(v: string | number | undefined, fallback = 30_000): number {
  if (v === undefined) return fallback;
  if (typeof v === "number") return v * 1000;
  const m = /^(\d+)(ms|s|m|h)?$/.exec(v.trim());
  if (!m) return fallback;
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? "s") as "s"];
}

export function watchSpecFromSettings(w: NonNullable<NonNullable<Settings["k8s"]>["watch"]>): WatchSpec {
  return {
    intervalMs: intervalMs(w.interval),
    ...(w.context ? { context: w.context } : {}),
    ...(w.namespace ? { namespace: w.namespace } : {}),
    ...(w.deployment ? { deployment: w.deployment } : {}),
    ...(w.selector ? { selector: w.selector } : {}),
    ...(w.kubeconfig ? { kubeconfig: w.kubeconfig } : {}),
  };
}

export function createK8sSlot(o: K8sSlotOptions): K8sSlot {
  let watch: SessionWatch | undefined;
  let loading: Promise<SessionWatch> | undefined;
  let starting: Promise<void> | undefined;
  const configured = o.settings?.watch !== undefined;
  const load = () =>
    (loading ??= import("../k8s/session-watch.ts").then((m) => {
      watch = new m.SessionWatch({ env: o.env, home: o.home, publish: o.publish });
      return watch;
    }));
  return {
    configured,
    dynamicTools: {
      tools: () => watch?.tools() ?? [],
      find: (name) => watch?.find(name),
    },
    promptPart: () => watch?.promptPart(),
    load,
    current: () => watch,
    start() {
      const spec = o.settings?.watch;
      if (!spec) return Promise.resolve();
      starting ??= load().then(async (w) => {
        const r = await w.start(watchSpecFromSettings(spec));
        o.publish({ type: "notice", level: r.ok ? "info" : "warn", text: r.text });
      });
      return starting;
    },
  };
}

/** Two dynamic tool sources (MCP servers, the watch) as one for the tool host; `a` first. */
export function mergeDynamicTools(
  a: K8sSlot["dynamicTools"] | undefined,
  b: K8sSlot["dynamicTools"],
): K8sSlot["dynamicTools"] {
  if (!a) return b;
  return { tools: () => [...a.tools(), ...b.tools()], find: (name) => a.find(name) ?? b.find(name) };
}
