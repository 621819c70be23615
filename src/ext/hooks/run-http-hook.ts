/**
 * Runs one `type: "http"` hook: POSTs the event JSON to the URL. A 2xx answer is read like a command's exit 0 (its
 * body may be the same decision JSON); any other status, a refused connection or a timeout is a hook failure.
 * Header values may name environment variables (`$NAME`, `${NAME}`) only when listed in `allowedEnvVars`.
 */
import type { HttpHookSpec } from "./hook-config.ts";

export interface HttpRun {
  status?: number;
  body: string;
  error?: string;
  timedOut: boolean;
  durationMs: number;
}

export async function runHttpHook(spec: HttpHookSpec, input: string, env: Record<string, string | undefined>, timeoutMs: number, signal?: AbortSignal): Promise<HttpRun> {
  const started = Date.now();
  const timeout = AbortSignal.timeout(timeoutMs);
  const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const headers: Record<string, string> = { "content-type": "application/json" };
  for (const [k, v] of Object.entries(spec.headers ?? {})) headers[k] = expand(v, env, spec.allowedEnvVars ?? []);
  try {
    const res = await fetch(spec.url, { method: "POST", headers, body: input, signal: both });
    const body = await res.text();
    return { status: res.status, body, timedOut: false, durationMs: Date.now() - started };
  } catch (err) {
    return { body: "", error: (err as Error)?.message ?? String(err), timedOut: timeout.aborted, durationMs: Date.now() - started };
  }
}

function expand(value: string, env: Record<string, string | undefined>, allowed: string[]): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, a: string | undefined, b: string | undefined) => {
    const name = a ?? b ?? "";
    return allowed.includes(name) ? (env[name] ?? "") : whole;
  });
}
