import { describe, expect, it } from '@jest/globals';
import { countWords } from '../src/text.js';

describe('countWords', () => {
  const byRegex = (text: string): number => text.match(/[\p{L}\p{N}_]+/gu)?.length ?? 0;

  it('counts runs of letters, digits and underscores in any script', () => {
    for (const text of [
      '',
      '   ',
      'hello world',
      'snake_case and kebab-case, 12.5 %',
      'Ünïcödé wörds—and…dots',
      'العربية ٣٤ हिन्दी 你好世界 日本語のテキスト',
      'astral 𝒳y 𝟘𝟙 𐐷𐐷 😀x',
      'lone \ud800 high and \udc00 low surrogates',
      'a high surrogate last\ud835',
      '\ud835\udcb3',
    ]) {
      expect(countWords(text)).toBe(byRegex(text));
    }
  });

  it('agrees with the regex on random text', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let k = 0; k < 2000; k++) {
      let text = '';
      for (let j = 0; j < 24; j++) text += String.fromCharCode(next() % 2 ? next() % 128 : next() % 0x10000);
      expect(countWords(text)).toBe(byRegex(text));
    }
  });
});
