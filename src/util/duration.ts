/** Durations as people write them in front matter: `90s`, `10m`, `1h`, `500ms`, or a bare number of seconds. */
export function parseDurationSeconds(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) && v > 0 ? v : undefined;
  if (typeof v !== "string") return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?)?\s*$/i.exec(v);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = (m[2] ?? "s").toLowerCase();
  const secs = unit === "ms" ? n / 1000 : unit.startsWith("h") ? n * 3600 : unit.startsWith("m") ? n * 60 : n;
  return secs > 0 ? secs : undefined;
}
