import { describe, expect, test } from 'vitest';
import { CARD_KIND_VALUES, DROP_REASON_VALUES, MARK_BY_VALUES, MEMORY_KIND_VALUES, PROVIDER_NAME_VALUES } from './bridge.gen';
import { isOneOf, keyedBy, oneOf } from './enum';

describe('oneOf', () => {
  test('keeps a Go value and replaces anything else with the fallback', () => {
    expect(oneOf(MEMORY_KIND_VALUES, 'goal', 'context')).toBe('goal');
    expect(oneOf(MEMORY_KIND_VALUES, 'mood', 'context')).toBe('context');
    expect(oneOf(MEMORY_KIND_VALUES, undefined, 'context')).toBe('context');
    expect(oneOf(MEMORY_KIND_VALUES, 3, 'context')).toBe('context');
    expect(oneOf(MARK_BY_VALUES, '', 'words')).toBe('');
  });
});

describe('keyedBy', () => {
  test('keeps the entries keyed by a Go value, each read, and leaves out other keys', () => {
    expect(keyedBy(DROP_REASON_VALUES, { long: 2, trivial: '3', bored: 1 }, (x) => Number(x))).toEqual({ long: 2, trivial: 3 });
    expect(keyedBy(PROVIDER_NAME_VALUES, { openai: 'keyring', '': 'x' }, String)).toEqual({ openai: 'keyring', '': 'x' });
    expect(keyedBy(DROP_REASON_VALUES, null, Number)).toEqual({});
    expect(keyedBy(DROP_REASON_VALUES, ['long'], Number)).toEqual({});
  });
});

describe('isOneOf', () => {
  test('tells a Go value from anything else', () => {
    expect(isOneOf(CARD_KIND_VALUES, 'cloze')).toBe(true);
    expect(isOneOf(CARD_KIND_VALUES, 'Cloze')).toBe(false);
    expect(isOneOf(CARD_KIND_VALUES, null)).toBe(false);
  });
});
