/**
 * Which providers can be used right now, and why not. A keyed provider is available when one of its env
 * keys is set; a local one when its server answers a short (1 s) probe. Providers with other rules
 * (Copilot's stored login, keyless user-defined servers) register an availability check.
 */
import { t } from "../i18n/i18n.ts";
import type { ProviderDefinition } from "./provider.ts";
import { listProviderDefinitions, resolveBaseUrl } from "./registry.ts";

export interface ProviderRow {
  id: string;
  displayName: string;
  available: boolean;
  reason: string;
  defaultModel: string;
}

export interface AvailabilityContext {
  env: Record<string, string | undefined>;
  fetch: typeof fetch;
  def: ProviderDefinition;
}

export type AvailabilityCheck = (ctx: AvailabilityContext) => Promise<{ available: boolean; reason: string }>;

const checks = new Map<string, AvailabilityCheck>();

export function registerAvailabilityCheck(id: string, check: AvailabilityCheck): void {
  checks.set(id.toUpperCase(), check);
}

export const LOCAL_PROBE_TIMEOUT_MS = 1000;

export async function discoverProviders(
  env: Record<string, string | undefined>,
  fetchImpl: typeof fetch = fetch,
): Promise<ProviderRow[]> {
  const defs = listProviderDefinitions();
  return Promise.all(
    defs.map(async (def) => {
      const { available, reason } = await availability(def, env, fetchImpl);
      return { id: def.id, displayName: def.displayName, available, reason, defaultModel: def.defaultModel };
    }),
  );
}

async function availability(def: ProviderDefinition, env: Record<string, string | undefined>, f: typeof fetch) {
  const check = checks.get(def.id.toUpperCase());
  if (check) return check({ env, fetch: f, def });
  const setKey = def.envKeys.find((k) => env[k]?.trim());
  if (setKey) return { available: true, reason: t("providers.keySet", { key: setKey }) };
  if (def.capabilities.local) return probeLocal(def, env, f);
  if (!def.needsAuth) return { available: true, reason: t("providers.noKeyNeeded") };
  return { available: false, reason: t("providers.setKey", { keys: def.envKeys.join(t("providers.or")) }) };
}

/** Local servers answer `GET /api/version` (Ollama's cheapest endpoint). */
async function probeLocal(def: ProviderDefinition, env: Record<string, string | undefined>, f: typeof fetch) {
  const base = resolveBaseUrl(def, env).replace(/\/+$/, "");
  const name = def.displayName.replace(/\s*\(.*\)\s*$/, "");
  try {
    const res = await f(`${base}/api/version`, { signal: AbortSignal.timeout(LOCAL_PROBE_TIMEOUT_MS) });
    await res.body?.cancel().catch(() => undefined);
    if (res.ok) return { available: true, reason: t("providers.answering", { name, url: base }) };
    return { available: false, reason: t("providers.answeredHttp", { name, status: res.status, url: base }) };
  } catch {
    return { available: false, reason: t("providers.unreachable", { name, url: base }) };
  }
}

/** The `chatcli providers` table: available providers first, in registration order otherwise. */
export function formatProvidersTable(rows: ProviderRow[]): string {
  const sorted = [...rows].sort((a, b) => Number(b.available) - Number(a.available));
  const head = ["", t("providers.colProvider"), t("providers.colName"), t("providers.colModel"), t("providers.colStatus")];
  const body = sorted.map((r) => [r.available ? "✓" : "✗", r.id, r.displayName, r.defaultModel || "-", r.reason]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ").trimEnd();
  return [line(head), ...body.map(line)].join("\n");
}
