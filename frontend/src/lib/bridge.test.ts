// The bridge's contract is written in Go (app.App, app.Events); bridge.gen.ts is generated
// from it (`go generate ./app`, checked by app's TestBridgeGenerated). These tests fail
// when the hand-written side (api.ts's method list, types.ts's events and types) drifts
// from it; bridge.test-d.ts checks the types' fields.
import { describe, expect, test } from 'vitest';
import apiSource from './api.ts?raw';
import checkSource from './bridge.test-d.ts?raw';
import genSource from './bridge.gen.ts?raw';
import { BRIDGE_METHODS } from './bridge.gen';
import typesSource from './types.ts?raw';

/** Types of types.ts that stand for no Go type: derived from others or the frontend's own. */
const FRONTEND_ONLY = new Set([
  'DocStatus', // gen.DocStatus less 'removed' (bridge.test-d.ts checks DocumentEvent's)
  'EventName', // keyof EventMap
  'AnswerEvent', // a union of the answer events' payloads
]);

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

  test('bridge.test-d.ts checks every type of types.ts against its Go type', () => {
    const declared = [...typesSource.matchAll(/^export type (\w+)/gm)].map((m) => m[1]);
    expect(declared.length).toBeGreaterThan(25);
    const unchecked = declared.filter((t) => !FRONTEND_ONLY.has(t) && !new RegExp(`hand\\.${t}\\b`).test(checkSource));
    expect(unchecked).toEqual([]);
  });

  test('types.ts writes out no enumeration: its enumerated values are the Go types\' (bridge.gen.ts)', () => {
    const code = typesSource.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    const unions = [...code.matchAll(/'[^']+'\s*\||\|\s*'[^']+'/g)].map((m) => m[0]);
    expect(unions).toEqual([]);
  });
});
