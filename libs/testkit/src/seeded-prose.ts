// Seeded prose for generated test sites: the same bytes on every run, so pages can be compared
// across runs and both sides of a bench read the same site.

/** A small seeded generator (mulberry32). */
export const seededRandom = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

/** Words and sentences drawn from a site's vocabulary; a sentence has `least` + up to `spread` words. */
export const prose = (vocabulary: readonly string[], least: number, spread: number) => {
  const words = (rnd: () => number, n: number) =>
    Array.from({ length: n }, () => vocabulary[Math.floor(rnd() * vocabulary.length)]!);
  const sentence = (rnd: () => number) => {
    const w = words(rnd, least + Math.floor(rnd() * spread));
    return `${w[0]!.charAt(0).toUpperCase()}${w[0]!.slice(1)} ${w.slice(1).join(' ')}.`;
  };
  return { words, sentence };
};
