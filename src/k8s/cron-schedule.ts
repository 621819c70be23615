/**
 * Just enough cron (the five standard fields, `*`, lists, ranges, steps, and the @hourly/@daily/… macros) to count
 * the schedule times a CronJob should have fired between two instants, in UTC (CronJob `timeZone` is not honoured
 * yet: an offset zone shifts times, not the count of a regular schedule).
 */
const MACROS: Record<string, string> = { "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *" };
const RANGES: [number, number][] = [[0, 59], [0, 23], [1, 31], [1, 12], [0, 7]];

function field(text: string, [lo, hi]: [number, number]): Set<number> | undefined {
  const out = new Set<number>();
  for (const part of text.split(",")) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!m) return undefined;
    const start = m[1] === "*" ? lo : Number(m[2]);
    const end = m[1] === "*" ? hi : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? hi : start;
    const step = m[4] !== undefined ? Number(m[4]) : 1;
    if (start < lo || end > hi || step < 1) return undefined;
    for (let v = start; v <= end; v += step) out.add(v);
  }
  return out;
}

export interface CronSchedule {
  matches(t: Date): boolean;
}

export function parseCron(expr: string): CronSchedule | undefined {
  const parts = (MACROS[expr.trim()] ?? expr).trim().split(/\s+/);
  if (parts.length !== 5) return undefined;
  const sets = parts.map((p, i) => field(p, RANGES[i] as [number, number]));
  const [min, hour, dom, mon, dow] = sets;
  if (!min || !hour || !dom || !mon || !dow) return undefined;
  if (dow.has(7)) dow.add(0);
  const domStar = parts[2] === "*";
  const dowStar = parts[4] === "*";
  return {
    matches(t) {
      if (!min.has(t.getUTCMinutes()) || !hour.has(t.getUTCHours()) || !mon.has(t.getUTCMonth() + 1)) return false;
      const d = dom.has(t.getUTCDate());
      const w = dow.has(t.getUTCDay());
      // cron's rule: when both day fields are restricted, either may match.
      return domStar || dowStar ? d && w : d || w;
    },
  };
}

/** Scheduled times in (from, to], counted minute by minute; stops at `cap` (the caller only needs "many"). */
export function countRuns(s: CronSchedule, from: number, to: number, cap = 100): number {
  let n = 0;
  const first = Math.floor(from / 60_000) * 60_000 + 60_000;
  for (let t = first; t <= to && n < cap; t += 60_000) if (s.matches(new Date(t))) n++;
  return n;
}
