import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { z } from '@tidemark/config';
import { requireSecretsKey, SecretBox, secretBoxFor, secretsKeyEnv } from '../src/index.js';

describe('SecretBox', () => {
  it('seals so that only the same key opens, and says what is sealed', () => {
    const box = new SecretBox(Buffer.alloc(32, 1));
    const sealed = box.seal('whsec_abc');
    expect(sealed).not.toContain('whsec');
    expect(SecretBox.isSealed(sealed)).toBe(true);
    expect(SecretBox.isSealed('whsec_abc')).toBe(false);
    expect(box.open(sealed)).toBe('whsec_abc');
    expect(box.seal('whsec_abc')).not.toBe(sealed); // a fresh IV each time
    expect(() => new SecretBox(Buffer.alloc(32, 2)).open(sealed)).toThrow();
    const [v, iv, tag, body] = sealed.split('.');
    const flipped = Buffer.from(body!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => box.open([v, iv, tag, flipped.toString('base64url')].join('.'))).toThrow();
  });

  it('takes SECRETS_KEY from config: 32 bytes, required in production, never the development key', () => {
    const schema = z.object({ NODE_ENV: z.string(), ...secretsKeyEnv }).superRefine(requireSecretsKey);
    const key = Buffer.alloc(32, 3).toString('base64');
    expect(schema.safeParse({ NODE_ENV: 'production', SECRETS_KEY: key }).success).toBe(true);
    expect(schema.safeParse({ NODE_ENV: 'production' }).success).toBe(false);
    expect(schema.safeParse({ NODE_ENV: 'development', SECRETS_KEY: 'c2hvcnQ=' }).success).toBe(false);
    expect(schema.safeParse({ NODE_ENV: 'development' }).success).toBe(true);
    // The development key is public: production refuses it, development runs on it.
    const devKey = (SecretBox.development() as unknown as { key: Buffer }).key.toString('base64');
    expect(schema.safeParse({ NODE_ENV: 'production', SECRETS_KEY: devKey }).success).toBe(false);
    expect(schema.safeParse({ NODE_ENV: 'development', SECRETS_KEY: devKey }).success).toBe(true);
    const warnings: string[] = [];
    const dev = secretBoxFor(undefined, (m) => warnings.push(m));
    expect(warnings).toEqual(['SECRETS_KEY is not set: secrets are sealed with the development key']);
    expect(SecretBox.development().open(dev.seal('x'))).toBe('x');
    expect(new SecretBox(Buffer.alloc(32, 3)).open(secretBoxFor(key, () => undefined).seal('y'))).toBe('y');
  });

  it('digests under its own key: the same text the same, another key another, never the plain SHA-256', () => {
    const a = new SecretBox(Buffer.alloc(32, 1));
    expect(a.digest('{"password":"hunter2"}')).toBe(a.digest('{"password":"hunter2"}'));
    expect(a.digest('{"password":"hunter2"}')).not.toBe(a.digest('{"password":"hunter3"}'));
    expect(new SecretBox(Buffer.alloc(32, 2)).digest('x')).not.toBe(a.digest('x'));
    expect(a.digest('x')).not.toBe(createHash('sha256').update('x').digest('hex'));
  });
});
