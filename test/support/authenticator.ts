import { createHash, createHmac, randomBytes } from 'node:crypto';

// What the tests need of a member's side of sign-in, written from the RFCs rather than imported
// from the gateway, so a fault in the gateway's own TOTP or token code cannot pass its own test.

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

const fromBase32 = (text: string): Buffer => {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of text.replace(/=+$/, '').toUpperCase()) {
    value = (value << 5) | BASE32.indexOf(ch);
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
};

/** The RFC 6238 time step (30 s) of a moment. */
export const stepAt = (ms: number): number => Math.floor(ms / 30_000);

/** The 6-digit code an authenticator app shows for a base32 seed at a step (RFC 4226, SHA-1). */
export const totpCode = (seed: string, step: number): string => {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', fromBase32(seed)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 1_000_000).padStart(6, '0');
};

/** A one-time code as the gateway hands them out (32 random bytes, base64url) and how it stores one (SHA-256, hex). */
export const mintToken = (): string => randomBytes(32).toString('base64url');
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
