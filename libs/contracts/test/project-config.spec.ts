import { describe, expect, it } from '@jest/globals';
import {
  CONFIG_GROUPS,
  CONFIG_KEYS,
  configInputSchema,
  ConfigConflictError,
  defaultConfig,
  isSealedValue,
  mapConfigHeaders,
  maskSecretValue,
  presentConfig,
  resolveMaskedKeys,
  saveConfig,
  toConfigPatch,
} from '../src/index.js';

const patchOf = (input: unknown) => toConfigPatch(configInputSchema.parse(input));

describe('project config', () => {
  it('puts every key in exactly one group with a default that its own schema accepts', () => {
    const defaults = defaultConfig();
    expect(Object.keys(defaults)).toEqual([...CONFIG_GROUPS]);
    for (const [name, def] of Object.entries(CONFIG_KEYS)) {
      expect([name, def.schema.safeParse(def.default).success]).toEqual([name, true]);
      expect((defaults[def.group] as Record<string, unknown>)[name]).toEqual(def.default);
    }
  });

  it('has every key the spec names, by name or alias', () => {
    const spec = [
      'render_js',
      'max_pages',
      'include_paths',
      'webhook_url',
      'webhook_events',
      'notify_min_words',
      'change_digest',
      'chat_url',
      'limit',
      'maxDepth',
      'includePaths',
      'excludePaths',
      'useSitemap',
      'sitemapMode',
      'crawlMode',
      'allowSubdomains',
      'maxAge',
      'maxTier',
      'delay',
      'concurrency',
      'respectRobots',
      'STORE_HTML',
    ];
    for (const name of spec)
      expect([name, configInputSchema.safeParse({ [name]: undefined }).success]).toEqual([name, true]);
    expect(patchOf({ STORE_HTML: 'always' })).toEqual({ store_html: 'always' });
  });

  it('accepts a key flat, by alias or in its group, and refuses it in another group', () => {
    expect(patchOf({ maxTier: 'http' })).toEqual({ max_tier: 'http' });
    expect(patchOf({ fetch: { max_tier: 'http' } })).toEqual({ max_tier: 'http' });
    expect(configInputSchema.safeParse({ scope: { max_tier: 'http' } }).success).toBe(false);
  });

  it('refuses two spellings that disagree, and accepts two that agree', () => {
    expect(() => patchOf({ limit: 5, max_pages: 6 })).toThrow(ConfigConflictError);
    expect(patchOf({ limit: 5, scope: { max_pages: 5 } })).toEqual({ max_pages: 5 });
  });

  it('moves the version only when the resolved config changes', () => {
    const first = saveConfig(undefined, patchOf({ render_js: 'always' }));
    expect(first.version).toBe(1);
    const same = saveConfig({ config: first.config, version: 1 }, patchOf({ render_js: 'always', delay: 0 }));
    expect(same).toMatchObject({ version: 1, changed: false });
    const changed = saveConfig({ config: first.config, version: 1 }, patchOf({ delay: 2 }));
    expect(changed).toMatchObject({ version: 2, changed: true });
    expect(changed.config.fetch).toMatchObject({ render_js: 'always', delay: 2 });
  });

  it('masks chat_url on the way out and reads the masked value back as "keep"', () => {
    const url = 'https://hooks.example.com/services/T1/B2/secretsecret1234';
    const { config } = saveConfig(undefined, patchOf({ chat_url: url }));
    const shown = presentConfig(config, 1).output.chat_url;
    expect(shown).toBe('https://hooks.example.com/****1234');
    expect(resolveMaskedKeys(config, { chat_url: shown })).toEqual({ chat_url: url });
    expect(resolveMaskedKeys(config, { chat_url: '' })).toEqual({ chat_url: null });
  });

  it('takes a header value of up to 4,000 characters, or a sealed one (longer)', () => {
    const sealed = `v1.${'a'.repeat(16)}.${'b'.repeat(22)}.${'c'.repeat(5400)}`;
    expect(isSealedValue(sealed)).toBe(true);
    expect(isSealedValue('v1.a.b.c')).toBe(false);
    expect(isSealedValue('Bearer abc')).toBe(false);
    expect(configInputSchema.safeParse({ headers: { a: 'x'.repeat(4000) } }).success).toBe(true);
    expect(configInputSchema.safeParse({ headers: { a: sealed } }).success).toBe(true);
    const long = configInputSchema.safeParse({ headers: { a: 'x'.repeat(4001) } });
    expect(long.success).toBe(false);
    expect(long.error?.issues[0]?.message).toBe('at most 4000 characters');
  });

  it('masks a secret value to its last four characters, or to nothing when it is short', () => {
    expect(maskSecretValue('Bearer 0123456789abcd')).toBe('****abcd');
    expect(maskSecretValue('short')).toBe('****');
  });

  it('maps the header values of a config input wherever they are written, naming each field', () => {
    const fields: string[] = [];
    const out = mapConfigHeaders(
      { headers: { A: '1' }, fetch: { headers: { B: '2' }, delay: 1 }, max_pages: 3 },
      (v, field) => {
        fields.push(field);
        return `<${v}>`;
      },
    );
    expect(out).toEqual({ headers: { A: '<1>' }, fetch: { headers: { B: '<2>' }, delay: 1 }, max_pages: 3 });
    expect(fields).toEqual(['config.headers.A', 'config.fetch.headers.B']);
  });
});
