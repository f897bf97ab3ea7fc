// The bridge's contract is written in Go (app.App, app.Events); bridge.gen.ts is generated
// from it (`go generate ./app`, checked by app's TestBridgeGenerated). These tests fail
// when the hand-written side (api.ts's method list, types.ts's events and types) drifts
// from it; bridge.test-d.ts checks the types' fields.
import { describe, expect, test } from 'vitest';
import apiSource from './api.ts?raw';
import genSource from './bridge.gen.ts?raw';
import { BRIDGE_EVENTS, BRIDGE_METHODS } from './bridge.gen';
import { EVENT_NAMES } from './types';

/** Method name → parameter count of an interface block in a TypeScript source. */
function methods(src: string, iface: string): Map<string, number> {
  const start = src.indexOf(`interface ${iface} {`);
  expect(start, `interface ${iface}`).toBeGreaterThanOrEqual(0);
  const body = src.slice(start, src.indexOf('\n}', start));
  const out = new Map<string, number>();
  for (const m of body.matchAll(/^\s+([A-Z]\w*)\??\(([^)]*)\)/gm)) {
    out.set(m[1], m[2].trim() === '' ? 0 : m[2].split(',').length);
  }
  return out;
}

describe('bridge contract', () => {
  test('api.ts declares every Go method with its number of arguments, and no other', () => {
    const hand = methods(apiSource, 'WailsApp');
    const gen = methods(genSource, 'Bridge');
    expect(gen.size).toBe(BRIDGE_METHODS.length);
    expect([...hand.keys()].sort()).toEqual([...gen.keys()].sort());
    for (const [name, n] of gen) expect(hand.get(name), name).toBe(n);
  });

  test('types.ts listens to every event the Go side sends, and no other', () => {
    expect([...EVENT_NAMES].sort()).toEqual([...BRIDGE_EVENTS].sort());
  });
});
