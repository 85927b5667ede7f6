import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

/** The low `length` base-32 digits of a millisecond time (50 bits at most: exact in a double). */
const encodeTime = (now: number, length: number): string => {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[now % 32]! + out;
    now = Math.floor(now / 32);
  }
  return out;
};

/**
 * Random bytes drawn from the system's generator a pool at a time: a call to it per id was most
 * of an id's cost, and ids are made for every page row and charge.
 */
const POOL = 4096;
const pool = Buffer.alloc(POOL);
let used = POOL;

/** `length` random base-32 digits: one byte each, its low five bits (256 is a multiple of 32: uniform). */
const randomDigits = (length: number): string => {
  if (used + length > POOL) {
    randomFillSync(pool);
    used = 0;
  }
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[pool[used + i]! & 31]!;
  used += length;
  return out;
};

/**
 * `prefix_` + 10 chars of millisecond time + 16 random chars: ids sort by creation time, so a
 * list can page by id alone, and the prefix says what an id names when it shows up in a log.
 */
export const newId = (prefix: string, now = Date.now()): string =>
  `${prefix}_${encodeTime(Math.floor(now), 10)}${randomDigits(16)}`;
