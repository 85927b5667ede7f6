import { createHash, randomBytes } from 'node:crypto';

export const KEY_PREFIX = 'service_';

/** A new key value: `service_` + 40 base62 characters (~238 bits). */
export const mintKeySecret = (): string => {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const bytes = randomBytes(64);
  let out = '';
  // Rejection sampling keeps every character equally likely.
  for (const b of bytes) {
    if (b < 248 && out.length < 40) out += alphabet[b % 62];
  }
  while (out.length < 40) out += alphabet[randomBytes(1)[0]! % 62];
  return KEY_PREFIX + out;
};

/** Keys are stored as this hash only; a fast hash suffices for 238 random bits. */
export const hashKeySecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** What lists show of a key: enough to recognise it, too little to use it. */
export const displayPrefix = (secret: string): string => secret.slice(0, KEY_PREFIX.length + 6);
