// Enumerated values arriving from Go: checked against the values bridge.gen.ts lists for
// each Go type (MEMORY_KIND_VALUES, ...), so no normalizer writes Go's values out again.

/** Whether v is one of values. */
export const isOneOf = <T extends string>(values: readonly T[], v: unknown): v is T => (values as readonly unknown[]).includes(v);

/** v when it is one of values, else fallback. */
export function oneOf<T extends string, F extends string = T>(values: readonly T[], v: unknown, fallback: F): T | F {
  return isOneOf(values, v) ? v : fallback;
}

/**
 * A Go map keyed by an enumerated type (map[study.DropReason]int), as JSON sends it: the
 * entries of o whose key is one of values, each value read by read; other keys are left out.
 */
export function keyedBy<K extends string, V>(values: readonly K[], o: unknown, read: (x: unknown) => V): Partial<Record<K, V>> {
  const out: Partial<Record<K, V>> = {};
  if (!o || typeof o !== 'object' || Array.isArray(o)) return out;
  for (const [k, x] of Object.entries(o)) if (isOneOf(values, k)) out[k] = read(x);
  return out;
}
