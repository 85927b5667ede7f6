// Non-cryptographic string hashes for fingerprints. Blocks, nodes and shingles are hashed
// millions of times per run, so these work on UTF-16 code units with 32-bit integer maths.

/** murmur3's finaliser: spreads every input bit over the whole word. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Two independent 32-bit hashes of a string (an FNV-1a lane and a multiply-xorshift lane). */
export function hashLanes(text: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return [fmix32(a ^ text.length), fmix32(b ^ Math.imul(text.length, 0x27d4eb2d))];
}

/**
 * A 53-bit fingerprint in base 36 (at most 11 characters). Short enough to keep thousands per
 * page in the persisted noise state; wide enough that two blocks of one page never collide in
 * practice (a collision would hide a change, so 32 bits were not enough across 10,000 pages).
 */
export function fingerprint(text: string): string {
  const [a, b] = hashLanes(text);
  return ((b & 0x1fffff) * 0x100000000 + a).toString(36);
}
