import { describe, expect, it } from 'vitest';
import { errorText, inlineCode } from './text';

describe('inlineCode', () => {
  it('splits backtick spans out as code', () => {
    expect(inlineCode('Start it with `ollama serve`, then retry.')).toEqual([
      { text: 'Start it with ', code: false },
      { text: 'ollama serve', code: true },
      { text: ', then retry.', code: false },
    ]);
  });
  it('leaves text without backticks, and unmatched ones, alone', () => {
    expect(inlineCode('plain')).toEqual([{ text: 'plain', code: false }]);
    expect(inlineCode('a ` b')).toEqual([{ text: 'a ` b', code: false }]);
  });
});

describe('errorText', () => {
  it("gives an Error's message, and any other thrown value as text", () => {
    expect(errorText(new Error('library is read-only'))).toBe('library is read-only');
    expect(errorText('offline')).toBe('offline');
    expect(errorText(404)).toBe('404');
  });
});
