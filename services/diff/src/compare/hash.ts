// Non-cryptographic string hashes for fingerprints. Blocks, nodes and shingles are hashed
// millions of times per run, so these work on UTF-16 code units with 32-bit integer maths.

/** murmur3's finaliser: spreads every input bit over the whole word. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** One 32-bit hash of a string (FNV-1a, finished with fmix32). */
export function hash32(text: string): number {
  let a = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) a = Math.imul(a ^ text.charCodeAt(i), 0x01000193);
  return fmix32(a ^ text.length);
}

/**
 * Two independent 32-bit hashes of a sequence of strings, fed piece by piece (an FNV-1a lane
 * and a multiply-xorshift lane), so a block's fingerprint needs no joined copy of its text.
 */
export class LaneHasher {
  private a = 0x811c9dc5;
  private b = 0x9747b28c;
  private length = 0;

  add(text: string): this {
    let { a, b } = this;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    }
    this.a = a;
    this.b = b;
    this.length += text.length;
    return this;
  }

  lanes(): [number, number] {
    return [fmix32(this.a ^ this.length), fmix32(this.b ^ Math.imul(this.length, 0x27d4eb2d))];
  }

  /** A 53-bit fingerprint in base 36 (see fingerprint). */
  fingerprint(): string {
    const [a, b] = this.lanes();
    return ((b & 0x1fffff) * 0x100000000 + a).toString(36);
  }
}

/** Two independent 32-bit hashes of a string. */
export const hashLanes = (text: string): [number, number] => new LaneHasher().add(text).lanes();

/**
 * A 53-bit fingerprint in base 36 (at most 11 characters). Short enough to keep thousands per
 * page in the persisted noise state; wide enough that two blocks of one page never collide in
 * practice (a collision would hide a change, so 32 bits were not enough across 10,000 pages).
 */
export const fingerprint = (text: string): string => new LaneHasher().add(text).fingerprint();
