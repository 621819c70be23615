/**
 * One resource kept current the way client-go's reflector does, over Bun fetch (client-node's Watch/Informer use its
 * https path, which ignores the kubeconfig's CA under Bun): list → watch from the list's resourceVersion with
 * bookmarks; a dropped stream is re-watched from the last resourceVersion seen (a BOOKMARK's, or the last event's);
 * 410 Gone — an ERROR event in the stream or an HTTP 410 — and each resync period mean a fresh list. When watching is
 * refused (403 on the watch verb, 404/405, or an answer that is not a stream of events) it falls back to listing every
 * poll interval. Failures set `fault` and back off; they never throw out of `run`.
 */
import type { KubeClient } from "./kube-client.ts";
import { KubeError } from "./kube-client.ts";
import { AnyObject, listOf, WatchEvent } from "./kube-schemas.ts";
import { ndjsonLines } from "./ndjson.ts";
import { MAY_BE_UNSERVED, type ResourceSpec } from "./resources.ts";
import { faultOf, type KubeFault } from "./snapshot.ts";

/** Longest wait between retries while a resource cannot be read. */
export const INFORMER_MAX_BACKOFF_MS = 5 * 60_000;

export interface InformerOptions {
  /** How often to re-list even while the watch is healthy (and how long one watch request may stay open). */
  resyncMs: number;
  /** The poll period when watch is refused, and the base of the retry backoff. */
  intervalMs: number;
  /** The namespace in scope (named in faults). */
  namespace: string;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** The store changed (or a list completed): findings may have changed. */
  onChange(): void;
}

type WatchEnd = "gone" | "resync" | "ended" | "empty" | "refused" | "stopped";

const keyOf = (o: AnyObject) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`;

export class Informer {
  readonly store = new Map<string, AnyObject>();
  /** A list has completed at least once (the store holds the resource, possibly stale while `fault` is set). */
  synced = false;
  /** Watch was refused: the resource is listed every interval instead. */
  polling = false;
  fault: KubeFault | undefined;
  retryInMs = 0;
  /** The resourceVersion to watch from; undefined = list first. */
  private rv: string | undefined;
  private failures = 0;
  private wakeCtl = new AbortController();

  constructor(
    private readonly client: KubeClient,
    readonly spec: ResourceSpec,
    private readonly o: InformerOptions,
  ) {}

  /** Ends a backoff wait early (another resource just answered: the cluster is back). */
  wake(): void {
    this.wakeCtl.abort();
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        if (this.rv === undefined) await this.list();
        if (this.polling) {
          await this.pause(this.o.intervalMs, signal);
          this.rv = undefined;
          continue;
        }
        const end = await this.watch(signal);
        if (end === "empty") await this.pause(Math.min(1000, this.o.intervalMs), signal);
      } catch (err) {
        if (signal.aborted) return;
        this.failures++;
        this.fault = faultOf(this.spec.name, err, this.o.namespace);
        this.retryInMs = Math.min(this.o.intervalMs * 2 ** this.failures, INFORMER_MAX_BACKOFF_MS);
        this.rv = undefined;
        this.o.onChange();
        await this.pause(this.retryInMs, signal);
      }
    }
  }

  private async pause(ms: number, signal: AbortSignal): Promise<void> {
    if (this.wakeCtl.signal.aborted) this.wakeCtl = new AbortController();
    await this.o.sleep(ms, AbortSignal.any([signal, this.wakeCtl.signal]));
  }

  private async list(): Promise<void> {
    let items: AnyObject[] = [];
    try {
      const list = await this.client.get(this.spec.path, listOf(AnyObject), this.spec.query);
      items = list.items;
      this.rv = list.metadata?.resourceVersion ?? "";
    } catch (err) {
      if (!(err instanceof KubeError && err.kind === "notFound" && MAY_BE_UNSERVED.has(this.spec.name))) throw err;
      // Not served here (an API group the server lacks): empty, looked at again each interval.
      this.polling = true;
      this.rv = "";
    }
    this.store.clear();
    for (const item of items) this.store.set(keyOf(item), item);
    this.synced = true;
    this.failures = 0;
    this.fault = undefined;
    this.o.onChange();
  }

  private async watch(signal: AbortSignal): Promise<WatchEnd> {
    // The stop may have come during the list: a listener added to an aborted signal never fires.
    if (signal.aborted) return "stopped";
    const ac = new AbortController();
    const stop = () => ac.abort();
    signal.addEventListener("abort", stop, { once: true });
    let resync = false;
    const timer = setTimeout(() => {
      resync = true;
      ac.abort();
    }, this.o.resyncMs);
    try {
      let res: Response;
      try {
        res = await this.client.watch(this.spec.path, { ...this.spec.query, resourceVersion: this.rv || undefined, allowWatchBookmarks: "true" }, ac.signal);
      } catch (err) {
        if (err instanceof KubeError && err.status === 410) return this.relist("gone");
        if (err instanceof KubeError && (err.kind === "forbidden" || err.kind === "notFound" || err.status === 405)) return this.refuse();
        if (resync) return this.relist("resync");
        if (signal.aborted) return "stopped";
        throw err;
      }
      if (!res.body) return this.refuse();
      let lines = 0;
      try {
        for await (const line of ndjsonLines(res.body, ac.signal)) {
          lines++;
          let ev: WatchEvent | undefined;
          try {
            const r = WatchEvent.safeParse(JSON.parse(line));
            if (r.success) ev = r.data;
          } catch {
            // not JSON
          }
          if (!ev) {
            if (lines === 1) return this.refuse(); // a plain list or an HTML page: watch is not spoken here
            continue;
          }
          const end = this.apply(ev);
          if (end) return end;
        }
      } catch (err) {
        // A reset mid-stream is a dropped watch: re-watch from the last resourceVersion (a dead server fails that request).
        if (resync) return this.relist("resync");
        if (signal.aborted) return "stopped";
        if (err instanceof KubeError) throw err;
        return "ended";
      }
      if (resync) return this.relist("resync");
      return lines ? "ended" : "empty";
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", stop);
    }
  }

  private apply(ev: WatchEvent): WatchEnd | undefined {
    const version = ev.object.metadata?.resourceVersion;
    if (ev.type === "ERROR") {
      if (ev.object.code === 410) return this.relist("gone");
      const code = ev.object.code ?? 500;
      throw new KubeError(code === 401 ? "unauthorized" : code === 403 ? "forbidden" : "http", ev.object.message ?? `watch error ${code}`, this.spec.path, code);
    }
    if (ev.type === "BOOKMARK") {
      if (version) this.rv = version;
      return undefined;
    }
    const obj = AnyObject.safeParse(ev.object);
    if (!obj.success) return undefined;
    if (ev.type === "DELETED") this.store.delete(keyOf(obj.data));
    else this.store.set(keyOf(obj.data), obj.data);
    if (version) this.rv = version;
    this.o.onChange();
    return undefined;
  }

  private relist(end: "gone" | "resync"): WatchEnd {
    this.rv = undefined;
    return end;
  }

  private refuse(): WatchEnd {
    this.polling = true;
    return "refused";
  }
}
