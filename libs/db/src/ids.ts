import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

const encode = (value: bigint, length: number): string => {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
};

/**
 * `prefix_` + 10 chars of millisecond time + 16 random chars: ids sort by creation time, so a
 * list can page by id alone, and the prefix says what an id names when it shows up in a log.
 */
export const newId = (prefix: string, now = Date.now()): string =>
  `${prefix}_${encode(BigInt(now), 10)}${encode(BigInt('0x' + randomBytes(10).toString('hex')), 16)}`;
