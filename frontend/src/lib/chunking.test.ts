import { describe, expect, it } from 'vitest';
import { checkValue, crossErrors, differs, errorsByField, fieldLabel } from './chunking';

const size = { name: 'target', integer: true, min: 1, max: 100000 };
const share = { name: 'overlap', integer: false, min: 0.01, max: 0.5 };

describe('chunking form', () => {
  it('labels known and unknown fields', () => {
    expect(fieldLabel('target')).toBe('Target size');
    expect(fieldLabel('child_target')).toBe('Child target size');
    expect(fieldLabel('child_max')).toBe('Child largest');
    expect(fieldLabel('window_chars')).toBe('Window chars');
  });

  it('checks typed values against the field', () => {
    expect(checkValue('1200', size)).toEqual({ value: 1200 });
    expect(checkValue(' ', size)).toEqual({ error: 'Enter a number' });
    expect(checkValue('12.5', size)).toEqual({ error: 'Enter a whole number' });
    expect(checkValue('0', size)).toEqual({ error: 'Between 1 and 100000' });
    expect(checkValue('0.2', share)).toEqual({ value: 0.2 });
    expect(checkValue('0.9', share)).toEqual({ error: 'Between 0.01 and 0.5' });
    expect(checkValue('abc', share)).toEqual({ error: 'Enter a number' });
  });

  it('places backend errors by type and field', () => {
    const e = errorsByField('paper.min: must be at most the target (1200)\npaper.min: another\npoetry: not a document type\nsomething else broke');
    expect(e).toEqual({
      'paper.min': 'Must be at most the target (1200); Another',
      poetry: 'Not a document type',
      '': 'something else broke',
    });
  });

  it('finds min above target and max below it, in every family of sizes', () => {
    expect(crossErrors({ target: 900, min: 1000, max: 800, child_target: 200, child_min: 50, child_max: 100 })).toEqual({
      min: 'At most the target (900)',
      max: 'At least the target (900)',
      child_max: 'At least the target (200)',
    });
    expect(crossErrors({ target: 900, min: 200, max: 1200 })).toEqual({});
  });

  it('tells a changed profile from its defaults', () => {
    expect(differs({ target: 900, min: 200 }, { target: 900, min: 200 })).toBe(false);
    expect(differs({ target: 1000, min: 200 }, { target: 900, min: 200 })).toBe(true);
  });
});
