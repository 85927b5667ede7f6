import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../src/config.js';

const key = Buffer.alloc(32, 9).toString('base64');

describe('gateway config', () => {
  it('requires PUBLIC_BASE_URL in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', SECRETS_KEY: key })).toThrow(
      /PUBLIC_BASE_URL: required in production/,
    );
    const cfg = loadConfig({ NODE_ENV: 'production', SECRETS_KEY: key, PUBLIC_BASE_URL: 'https://api.example.com/' });
    expect(cfg.PUBLIC_BASE_URL).toBe('https://api.example.com');
    expect(loadConfig({}).PUBLIC_BASE_URL).toBeUndefined();
  });

  it('takes an origin only: http(s), no query or fragment', () => {
    for (const bad of ['ftp://api.example.com', 'https://api.example.com/?x=1', 'https://api.example.com/#v1'])
      expect(() => loadConfig({ PUBLIC_BASE_URL: bad })).toThrow(/PUBLIC_BASE_URL/);
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://example.com/tidemark' }).PUBLIC_BASE_URL).toBe(
      'https://example.com/tidemark',
    );
  });

  it('trusts no proxy unless told how many hops', () => {
    expect(loadConfig({}).TRUST_PROXY_HOPS).toBe(0);
    expect(loadConfig({ TRUST_PROXY_HOPS: '1' }).TRUST_PROXY_HOPS).toBe(1);
    expect(() => loadConfig({ TRUST_PROXY_HOPS: 'true' })).toThrow(/TRUST_PROXY_HOPS/);
  });
});
