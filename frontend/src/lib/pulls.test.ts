import { describe, expect, it } from 'vitest';
import { applyPullEvent, formatBytes, isRunning, newPull, pullFraction, pullText, sameModel } from './pulls';
import { pullEvent } from './normalize';
import type { PullEvent } from './types';

const ev = (o: Partial<PullEvent>): PullEvent => pullEvent({ pull_id: 'p1', model: 'm', ...o });

describe('pull progress', () => {
  it('follows each layer and sums them', () => {
    const p = newPull('m');
    expect(pullText(p)).toBe('Starting…');
    applyPullEvent(p, ev({ status: 'pulling manifest' }));
    expect(p.state).toBe('running');
    expect(pullText(p)).toBe('Asking the registry…');
    applyPullEvent(p, ev({ status: 'pulling aaa', digest: 'sha256:aaa', total: 1000, completed: 0 }));
    applyPullEvent(p, ev({ status: 'pulling bbb', digest: 'sha256:bbb', total: 3000, completed: 1000 }));
    expect(p.layers).toHaveLength(2);
    expect(pullFraction(p)).toBeCloseTo(0.25);
    applyPullEvent(p, ev({ status: 'pulling aaa', digest: 'sha256:aaa', total: 1000, completed: 1000 }));
    expect(pullFraction(p)).toBeCloseTo(0.5);
    expect(pullText(p)).toBe('Downloading 2.0 KB of 4.0 KB');
  });

  it('never goes backwards and clamps to the total', () => {
    const p = newPull('m');
    applyPullEvent(p, ev({ status: 'pulling a', digest: 'a', total: 100, completed: 60 }));
    applyPullEvent(p, ev({ status: 'pulling a', digest: 'a', total: 100, completed: 20 }));
    expect(p.layers[0].completed).toBe(60);
    applyPullEvent(p, ev({ status: 'pulling a', digest: 'a', total: 100, completed: 500 }));
    expect(p.layers[0].completed).toBe(100);
  });

  it('ends as done, failed or cancelled, and then ignores events', () => {
    const ok = newPull('m');
    applyPullEvent(ok, ev({ status: 'pulling a', digest: 'a', total: 100, completed: 10 }));
    applyPullEvent(ok, ev({ status: 'success', done: true }));
    expect(ok.state).toBe('done');
    expect(pullFraction(ok)).toBe(1);
    expect(ok.layers[0].completed).toBe(100);
    applyPullEvent(ok, ev({ status: 'failed', done: true, error: 'late' }));
    expect(ok.state).toBe('done');
    expect(isRunning(ok)).toBe(false);

    const bad = newPull('m');
    applyPullEvent(bad, ev({ status: 'failed', done: true, error: 'pull m: model not found' }));
    expect(bad.state).toBe('failed');
    expect(pullText(bad)).toBe('pull m: model not found');

    const stopped = newPull('m');
    applyPullEvent(stopped, ev({ status: 'cancelled', done: true, error: 'cancelled' }));
    expect(stopped.state).toBe('cancelled');
    expect(stopped.error).toBe('');
  });

  it('words the later steps', () => {
    const p = newPull('m');
    applyPullEvent(p, ev({ status: 'verifying sha256 digest' }));
    expect(pullText(p)).toBe('Checking the download…');
    applyPullEvent(p, ev({ status: 'writing manifest' }));
    expect(pullText(p)).toBe('Installing…');
  });
});

describe('helpers', () => {
  it('formats bytes', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1_500_000)).toBe('1.5 MB');
    expect(formatBytes(2_019_393_189)).toBe('2.0 GB');
    expect(formatBytes(274_302_450)).toBe('274 MB');
  });
  it('treats name and name:latest as one model', () => {
    expect(sameModel('tiny', 'tiny:latest')).toBe(true);
    expect(sameModel('tiny:3b', 'tiny')).toBe(false);
    expect(sameModel('', '')).toBe(false);
  });
  it('parses untrusted events with defaults', () => {
    expect(pullEvent(null)).toEqual({ pull_id: '', model: '', status: '', digest: '', total: 0, completed: 0, done: false, error: '' });
  });
});
