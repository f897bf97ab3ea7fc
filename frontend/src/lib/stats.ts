// The stats view's numbers, made ready to draw: days filled in, scales with round ticks,
// latency bars, shares. Pure functions, so the charts themselves only place shapes.

import type { Latency, Stats, StatsPeriod } from './types';

export type DayBar = {
  day: string;
  /** Short label for the axis, e.g. "Nov 3". */
  label: string;
  questions: number;
  hits: number;
  misses: number;
  cost: number;
  saved: number;
};

const DAY_MS = 86_400_000;

/** "YYYY-MM-DD" of a date, in local time (the backend groups days in local time too). */
export function isoDay(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

function parseDay(day: string): Date {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y, m - 1, d, 12); // noon: no daylight-saving edge moves it a day
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export function dayLabel(day: string): string {
  const d = parseDay(day);
  return `${MONTHS[d.getMonth()]} ${d.getDate()}`;
}

/**
 * The last `n` days up to `today` (oldest first), days without answers as zeros, so the
 * bars keep their places. Days after today (a clock that went back) are kept at the end.
 */
export function dailySeries(days: StatsPeriod[], n: number, today: Date = new Date()): DayBar[] {
  const by = new Map(days.map((d) => [d.day, d]));
  const end = parseDay(isoDay(today));
  const latest = days.reduce((m, d) => (d.day > m ? d.day : m), '');
  const last = latest > isoDay(end) ? parseDay(latest) : end;
  const out: DayBar[] = [];
  for (let i = n - 1; i >= 0; i--) {
    const day = isoDay(new Date(last.getTime() - i * DAY_MS));
    const p = by.get(day);
    out.push({
      day,
      label: dayLabel(day),
      questions: p?.questions ?? 0,
      hits: p?.cache_hits ?? 0,
      misses: p?.cache_misses ?? 0,
      cost: p?.cost_usd ?? 0,
      saved: p?.saved_usd ?? 0,
    });
  }
  return out;
}

/** A scale from 0 to a round maximum (1, 2 or 5 × 10ⁿ) ≥ the largest value, with ticks. */
export function niceScale(maxValue: number, ticks = 4, integer = false): { max: number; ticks: number[] } {
  if (!(maxValue > 0)) return { max: 1, ticks: [0, 1] };
  const raw = maxValue / ticks;
  const mag = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 5, 10].map((f) => f * mag).find((s) => s >= raw) ?? 10 * mag;
  if (integer) step = Math.max(1, Math.ceil(step));
  const max = Math.ceil(maxValue / step - 1e-9) * step;
  const out: number[] = [];
  for (let v = 0; v <= max + step / 2; v += step) out.push(Number(v.toPrecision(12)));
  return { max, ticks: out };
}

/** Hits as a share of the questions (0 to 1), or null when there were none. */
export function hitRate(p: Pick<StatsPeriod, 'cache_hits' | 'cache_misses'>): number | null {
  const n = p.cache_hits + p.cache_misses;
  return n > 0 ? p.cache_hits / n : null;
}

export type LatencyRow = {
  key: string;
  label: string;
  /** Cached answers (absent for retrieval, which a cache hit skips). */
  cached: Latency | null;
  uncached: Latency;
};

/** The latency chart's rows, in the order read: retrieval, first token, whole answer. */
export function latencyRows(p: StatsPeriod): LatencyRow[] {
  return [
    { key: 'retrieval', label: 'Finding passages', cached: null, uncached: p.retrieval },
    { key: 'ttft', label: 'First word', cached: p.ttft_cached, uncached: p.ttft_uncached },
    { key: 'total', label: 'Whole answer', cached: p.total_cached, uncached: p.total_uncached },
  ];
}

/** The largest p95 among the rows (what the latency axis must reach). */
export function latencyMax(rows: LatencyRow[]): number {
  let m = 0;
  for (const r of rows) for (const l of [r.cached, r.uncached]) if (l && l.n > 0) m = Math.max(m, l.p95_ms, l.p50_ms);
  return m;
}

/** "0.4 ms", "850 ms", "1.2 s", "12 s", "2.5 min". */
export function formatMs(ms: number): string {
  if (!(ms > 0)) return '0 ms';
  if (ms < 10) return `${Number(ms.toFixed(1))} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/** "$0.00", "$0.0042" (small sums keep their digits), "$12.50". */
export function usd(n: number): string {
  return `$${n > 0 && n < 0.01 ? n.toFixed(4) : n.toFixed(2)}`;
}

/** "950", "12.3k", "4.5M". */
export function compact(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export const isEmpty = (s: Stats): boolean => s.total.questions === 0;

/** One sentence saying what the answers-per-day chart shows, for screen readers. */
export function describeDays(bars: DayBar[]): string {
  const total = bars.reduce((s, b) => s + b.questions, 0);
  const busiest = bars.reduce<DayBar | null>((m, b) => (b.questions > (m?.questions ?? 0) ? b : m), null);
  if (!total) return `No answers in the last ${bars.length} days.`;
  const hits = bars.reduce((s, b) => s + b.hits, 0);
  return `${total} answers in the last ${bars.length} days, ${hits} from the cache; most on ${busiest!.label} (${busiest!.questions}).`;
}
