import { describe, expect, it } from '@jest/globals';
import { hammingDistance, simhash, SimhashIndex } from '../src/compare/simhash.js';

const words = (seed: number, n: number) => {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    out.push(`w${(seed >>> 8) % 5000}`);
  }
  return out;
};

describe('simhash', () => {
  const base = words(1, 800);
  const page = base.join(' ');

  it('gives equal fingerprints for equal texts and ignores case, formatting and volatile spans', () => {
    expect(simhash(page)).toMatch(/^[0-9a-f]{16}$/);
    expect(simhash(`# Title\n\n${page} updated 5 minutes ago`)).toBe(
      simhash(`# title\n\n**${page}** updated 9 minutes ago`),
    );
  });

  it('puts a lightly edited page within 3 bits and an unrelated page far away', () => {
    const edited = [...base];
    edited.splice(400, 2, 'harbour', 'lights');
    expect(hammingDistance(simhash(page), simhash(edited.join(' ')))).toBeLessThanOrEqual(3);
    expect(hammingDistance(simhash(page), simhash(words(2, 800).join(' ')))).toBeGreaterThan(12);
  });

  it('finds near-duplicates through the block tables', () => {
    const index = new SimhashIndex<string>();
    const other = words(3, 800).join(' ');
    index.add(simhash(page), 'a');
    index.add(simhash(other), 'b');
    const edited = [...base];
    edited.splice(10, 1, 'quay');
    expect(index.near(simhash(edited.join(' '))).map((n) => n.item)).toEqual(['a']);
    expect(index.near(simhash(words(4, 800).join(' ')))).toEqual([]);
  });

  it('counts differing bits across both halves', () => {
    expect(hammingDistance('0000000000000000', 'ffffffffffffffff')).toBe(64);
    expect(hammingDistance('8000000000000001', '0000000000000000')).toBe(2);
  });
});
