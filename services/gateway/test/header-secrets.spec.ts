import { describe, expect, it } from '@jest/globals';
import { SecretBox } from '@tidemark/secret-box';
import { HeaderSecrets } from '../src/services/header-secrets.js';

const box = new SecretBox(Buffer.alloc(32, 4));
const secrets = new HeaderSecrets(box);
const TOKEN = 'Bearer 0123456789abcdef';

describe('HeaderSecrets', () => {
  it('seals what a caller sends and refuses what already looks sealed', () => {
    const sealed = secrets.seal(TOKEN, 'body.config.headers.Authorization');
    expect(sealed).not.toContain('0123456789');
    expect(box.open(sealed)).toBe(TOKEN);
    expect(() => secrets.seal(sealed, 'body.config.headers.Authorization')).toThrow(
      /^body\.config\.headers\.Authorization: this looks like a value sealed/,
    );
  });

  it('reads a patch against the stored values: masked or equal keeps the ciphertext, anything else is sealed anew', () => {
    const stored = { Authorization: secrets.seal(TOKEN, 'f'), 'X-Team': secrets.seal('blue', 'f') };
    const out = secrets.sealPatch({ Authorization: '****cdef', 'X-Team': 'blue', 'X-New': 'n' }, stored);
    expect(out.Authorization).toBe(stored.Authorization);
    expect(out['X-Team']).toBe(stored['X-Team']);
    expect(box.open(out['X-New']!)).toBe('n');
    const changed = secrets.sealPatch({ Authorization: 'Bearer another-token-1234' }, stored);
    expect(changed.Authorization).not.toBe(stored.Authorization);
    expect(box.open(changed.Authorization!)).toBe('Bearer another-token-1234');
  });

  it('shows admins the values and others a mask; a value it cannot open is only ****', () => {
    const stored = {
      Authorization: secrets.seal(TOKEN, 'f'),
      Legacy: 'plain-from-before-sealing',
      Foreign: new SecretBox(Buffer.alloc(32, 8)).seal('x'),
    };
    expect(secrets.present(stored, true)).toEqual({
      Authorization: TOKEN,
      Legacy: 'plain-from-before-sealing',
      Foreign: '****',
    });
    expect(secrets.present(stored, false)).toEqual({ Authorization: '****cdef', Legacy: '****ling', Foreign: '****' });
  });

  it('keeps a target’s ciphertext when a copied value is the same', () => {
    const target = { A: secrets.seal('same', 'f'), B: secrets.seal('old', 'f') };
    const source = { A: secrets.seal('same', 'f'), B: secrets.seal('new', 'f') };
    const out = secrets.reuse(source, target);
    expect(out.A).toBe(target.A);
    expect(out.B).toBe(source.B);
  });

  it('seals the headers of a request body, flat or grouped, leaving the rest', () => {
    const body = secrets.sealRequest({ url: 'https://x.test/', config: { fetch: { headers: { A: 'a' } }, delay: 1 } });
    expect(body.url).toBe('https://x.test/');
    expect(box.open((body.config as any).fetch.headers.A)).toBe('a');
    expect((body.config as any).delay).toBe(1);
    expect(secrets.sealRequest({ url: 'u' })).toEqual({ url: 'u' });
  });
});
