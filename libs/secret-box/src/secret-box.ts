import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { z } from '@tidemark/config';

const VERSION = 'v1';

/**
 * AES-256-GCM for secrets at rest: `v1.<iv>.<tag>.<ciphertext>` (base64url). The version leaves
 * room for a key rotation later; a tampered or foreign value fails to open rather than decrypting
 * to garbage.
 */
/** The development key's bytes: public (it is in this file), so it never seals production secrets. */
const DEVELOPMENT_KEY = createHash('sha256').update('tidemark development secret key').digest();

export class SecretBox {
  private readonly key: Buffer;

  private readonly digestKey: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the secret key must be 32 bytes');
    this.key = key;
    this.digestKey = createHmac('sha256', key).update('tidemark digest key').digest();
  }

  /** The development key, for machines without SECRETS_KEY (never production). */
  static development(): SecretBox {
    return new SecretBox(DEVELOPMENT_KEY);
  }

  /**
   * A keyed digest (HMAC-SHA-256 under a key derived from this one), for comparing values that
   * must not be kept in the clear: unlike a plain hash, a stolen digest is no offline oracle
   * for a low-entropy value (a password, a code) in what was digested.
   */
  digest(text: string): string {
    return createHmac('sha256', this.digestKey).update(text).digest('hex');
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), body]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  /** Whether a stored value is sealed (as against plain text written before sealing began). */
  static isSealed(value: string): boolean {
    return value.startsWith(`${VERSION}.`) && value.split('.').length === 4;
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/**
 * SECRETS_KEY: the AES-256-GCM key (32 bytes, base64) every service that keeps a secret at rest
 * seals it with — job and project webhook secrets, connection secrets, second-factor seeds.
 * Required in production; elsewhere a fixed development key is used (and said so).
 */
export const secretsKeyEnv = {
  SECRETS_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64')
    .optional(),
};

/** The box for a service's config; production without a key is refused at config time by `requireSecretsKey`. */
export const secretBoxFor = (key: string | undefined, warn: (message: string) => void): SecretBox => {
  if (key) return new SecretBox(Buffer.from(key, 'base64'));
  warn('SECRETS_KEY is not set: secrets are sealed with the development key');
  return SecretBox.development();
};

/**
 * For a config schema's superRefine: in production SECRETS_KEY is required and may not be the
 * development key (anyone can read it here), whichever way it is written in base64.
 */
export const requireSecretsKey = (
  cfg: { NODE_ENV: string; SECRETS_KEY?: string | undefined },
  ctx: z.RefinementCtx,
): void => {
  if (cfg.NODE_ENV !== 'production') return;
  if (!cfg.SECRETS_KEY) ctx.addIssue({ code: 'custom', path: ['SECRETS_KEY'], message: 'required in production' });
  else if (Buffer.from(cfg.SECRETS_KEY, 'base64').equals(DEVELOPMENT_KEY))
    ctx.addIssue({
      code: 'custom',
      path: ['SECRETS_KEY'],
      message: 'is the development key, which is public: make one of your own (head -c 32 /dev/urandom | base64)',
    });
};
