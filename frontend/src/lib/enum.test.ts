import { describe, expect, test } from 'vitest';
import { MARK_BY_VALUES, MEMORY_KIND_VALUES } from './bridge.gen';
import { oneOf } from './enum';

describe('oneOf', () => {
  test('keeps a Go value and replaces anything else with the fallback', () => {
    expect(oneOf(MEMORY_KIND_VALUES, 'goal', 'context')).toBe('goal');
    expect(oneOf(MEMORY_KIND_VALUES, 'mood', 'context')).toBe('context');
    expect(oneOf(MEMORY_KIND_VALUES, undefined, 'context')).toBe('context');
    expect(oneOf(MEMORY_KIND_VALUES, 3, 'context')).toBe('context');
    expect(oneOf(MARK_BY_VALUES, '', 'words')).toBe('');
  });
});
