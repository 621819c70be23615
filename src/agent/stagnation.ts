/** Fingerprint of a batch of tool calls: the sorted `name|normalized args`, hashed. Same batch ⇒ same print. */
import type { ToolCallRequest } from "./tool-host.ts";

export function batchFingerprint(calls: ToolCallRequest[]): string {
  const parts = calls.map((c) => `${c.name}|${JSON.stringify(sortKeys(c.args ?? {})).replace(/\s+/g, " ")}`).sort();
  return String(Bun.hash(parts.join("\n")));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    return Object.fromEntries(
      Object.keys(v as Record<string, unknown>)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}
