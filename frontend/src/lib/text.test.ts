import { describe, expect, it } from 'vitest';
import { inlineCode } from './text';

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
