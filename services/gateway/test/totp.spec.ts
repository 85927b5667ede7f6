import { describe, expect, it } from '@jest/globals';
import { base32, matchTotp, otpauthUrl, stepAt, totpCode } from '../src/accounts/second-factor/totp.js';

// RFC 6238 appendix B (SHA-1), the last six of its eight digits.
const RFC_SECRET = base32(Buffer.from('12345678901234567890'));

describe('TOTP', () => {
  it('makes the codes of RFC 6238’s test vectors', () => {
    expect(RFC_SECRET).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(totpCode(RFC_SECRET, stepAt(59_000))).toBe('287082');
    expect(totpCode(RFC_SECRET, stepAt(1_111_111_109_000))).toBe('081804');
    expect(totpCode(RFC_SECRET, stepAt(1_234_567_890_000))).toBe('005924');
    expect(totpCode(RFC_SECRET, stepAt(2_000_000_000_000))).toBe('279037');
  });

  it('accepts a step of drift, refuses others, and never the same step twice', () => {
    const now = 1_234_567_890_000;
    const step = stepAt(now);
    expect(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, step), now, null)).toBe(step);
    expect(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, step - 1), now, null)).toBe(step - 1);
    expect(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, step + 2), now, null)).toBeNull();
    expect(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, step), now, step)).toBeNull();
    expect(matchTotp(RFC_SECRET, '12345', now, null)).toBeNull();
    expect(matchTotp(RFC_SECRET, 'abcdef', now, null)).toBeNull();
  });

  it('writes the otpauth URL authenticator apps scan', () => {
    expect(otpauthUrl('ABC', 'ana@harbour.test')).toBe(
      'otpauth://totp/Tidemark%3Aana%40harbour.test?secret=ABC&issuer=Tidemark&algorithm=SHA1&digits=6&period=30',
    );
  });
});
