import { describe, expect, it } from '@jest/globals';
import { newId } from '../src/ids.js';

const DIGITS = '0123456789abcdefghjkmnpqrstvwxyz';

describe('newId', () => {
  it('spells the prefix, ten base-32 digits of the millisecond time and sixteen random ones', () => {
    const id = newId('page', 1795761301123);
    expect(id).toMatch(/^page_01m8dvdsm3[0-9a-hjkmnp-tv-z]{16}$/);
    expect(newId('x', 0).slice(0, 12)).toBe('x_0000000000');
    expect(newId('x', 31).slice(0, 12)).toBe('x_000000000z');
    expect(newId('x', 32).slice(0, 12)).toBe('x_0000000010');
    expect(newId('x', 2 ** 50 - 1).slice(0, 12)).toBe('x_zzzzzzzzzz');
  });

  it('sorts by creation time, and ids of one millisecond differ', () => {
    const ids = [1, 2, 1000, 1795761301123, 1795761301124].map((t) => newId('job', t));
    expect([...ids].sort()).toEqual(ids);
    const same = new Set(Array.from({ length: 10_000 }, () => newId('job', 1795761301123)));
    expect(same.size).toBe(10_000);
  });

  it('draws every random digit evenly, across refills of its pool', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) for (const d of newId('p').slice(12)) counts.set(d, (counts.get(d) ?? 0) + 1);
    expect([...counts.keys()].sort().join('')).toBe(DIGITS);
    // 320,000 digits: 10,000 each expected, a standard deviation of ~98.
    for (const n of counts.values()) expect(Math.abs(n - 10_000)).toBeLessThan(600);
  });
});
