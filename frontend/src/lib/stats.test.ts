import { describe, expect, it } from 'vitest';
import { stats as parseStats } from './normalize';
import { compact, dailySeries, describeDays, formatMs, hitRate, latencyMax, latencyRows, niceScale, usd } from './stats';

const day = (d: string, questions: number, hits = 0, cost = 0, saved = 0) =>
  parseStats({ days: [{ day: d, questions, cache_hits: hits, cache_misses: questions - hits, cost_usd: cost, saved_usd: saved }] }).days[0];

describe('dailySeries', () => {
  it('fills days without answers with zeros, oldest first, ending today', () => {
    const today = new Date(2026, 10, 30, 9);
    const bars = dailySeries([day('2026-11-30', 3, 1), day('2026-11-27', 2)], 5, today);
    expect(bars.map((b) => b.day)).toEqual(['2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29', '2026-11-30']);
    expect(bars.map((b) => b.questions)).toEqual([0, 2, 0, 0, 3]);
    expect(bars[4]).toMatchObject({ hits: 1, misses: 2, label: 'Nov 30' });
  });

  it('crosses month and year ends', () => {
    const bars = dailySeries([], 3, new Date(2027, 0, 1, 23, 30));
    expect(bars.map((b) => b.day)).toEqual(['2026-12-30', '2026-12-31', '2027-01-01']);
  });

  it('keeps a day later than today (the clock went back) at the end', () => {
    const bars = dailySeries([day('2026-12-02', 4)], 3, new Date(2026, 10, 30));
    expect(bars[2]).toMatchObject({ day: '2026-12-02', questions: 4 });
  });

  it('drops malformed days at the boundary', () => {
    expect(parseStats({ days: [{ day: 'yesterday', questions: 2 }, null], total: null }).days).toEqual([]);
  });
});

describe('niceScale', () => {
  it('rounds the top up to 1, 2 or 5 × 10ⁿ with even ticks', () => {
    expect(niceScale(7)).toEqual({ max: 8, ticks: [0, 2, 4, 6, 8] });
    expect(niceScale(100)).toEqual({ max: 100, ticks: [0, 50, 100] });
    expect(niceScale(0.013).max).toBeCloseTo(0.015);
  });
  it('counts in whole steps for counts', () => {
    expect(niceScale(3, 4, true)).toEqual({ max: 3, ticks: [0, 1, 2, 3] });
    expect(niceScale(1, 4, true)).toEqual({ max: 1, ticks: [0, 1] });
  });
  it('has a scale for nothing at all', () => {
    expect(niceScale(0)).toEqual({ max: 1, ticks: [0, 1] });
  });
});

describe('latency', () => {
  const total = parseStats({
    total: {
      questions: 3,
      retrieval: { n: 2, p50_ms: 40, p95_ms: 90, max_ms: 90 },
      ttft_cached: { n: 1, p50_ms: 12, p95_ms: 12, max_ms: 12 },
      ttft_uncached: { n: 2, p50_ms: 800, p95_ms: 1500, max_ms: 1500 },
      total_cached: { n: 1, p50_ms: 20, p95_ms: 20, max_ms: 20 },
      total_uncached: { n: 2, p50_ms: 2400, p95_ms: 5100, max_ms: 5100 },
    },
  }).total;

  it('has rows for retrieval (uncached only), first token and whole answer', () => {
    const rows = latencyRows(total);
    expect(rows.map((r) => r.key)).toEqual(['retrieval', 'ttft', 'total']);
    expect(rows[0].cached).toBeNull();
    expect(rows[1].cached?.p50_ms).toBe(12);
    expect(rows[2].uncached.p95_ms).toBe(5100);
    expect(latencyMax(rows)).toBe(5100);
  });

  it('ignores empty groups for the axis', () => {
    const rows = latencyRows(parseStats({ total: { total_cached: { n: 0, p95_ms: 99999 } } }).total);
    expect(latencyMax(rows)).toBe(0);
  });

  it('formats durations and money for people', () => {
    expect([formatMs(0), formatMs(0.44), formatMs(2), formatMs(850.4), formatMs(1234), formatMs(12_600), formatMs(150_000)]).toEqual(['0 ms', '0.4 ms', '2 ms', '850 ms', '1.2 s', '13 s', '2.5 min']);
    expect([usd(0), usd(0.0042), usd(12.5)]).toEqual(['$0.00', '$0.0042', '$12.50']);
    expect([compact(950), compact(12_345), compact(4_500_000)]).toEqual(['950', '12k', '4.5M']);
  });
});

describe('hits and summaries', () => {
  it('gives the hit rate, or nothing without questions', () => {
    expect(hitRate({ cache_hits: 1, cache_misses: 3 })).toBe(0.25);
    expect(hitRate({ cache_hits: 0, cache_misses: 0 })).toBeNull();
  });
  it('describes the days for screen readers', () => {
    const bars = dailySeries([day('2026-11-29', 4, 1), day('2026-11-30', 2)], 7, new Date(2026, 10, 30));
    expect(describeDays(bars)).toBe('6 answers in the last 7 days, 1 from the cache; most on Nov 29 (4).');
    expect(describeDays(dailySeries([], 7))).toBe('No answers in the last 7 days.');
  });
});
