// Enumerated values arriving from Go: checked against the values bridge.gen.ts lists for
// each Go type (MEMORY_KIND_VALUES, ...), so no normalizer writes Go's values out again.

/** v when it is one of values, else fallback. */
export function oneOf<T extends string>(values: readonly T[], v: unknown, fallback: T): T {
  return (values as readonly unknown[]).includes(v) ? (v as T) : fallback;
}
