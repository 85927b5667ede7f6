import { describe, expect, it } from '@jest/globals';
import { configInputSchema, crawlRequestSchema, scrapeRequestSchema, withOutboundUrlCheck } from '../src/index.js';

/** A stand-in for FetchGuard.checkUrl: refuses any URL on host "inside". */
const check = (url: string) => (new URL(url).hostname === 'inside' ? 'refused by the fetch guard: inside' : null);
const paths = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  result.error?.issues.map((i) => [i.path.join('.'), i.message]) ?? [];

describe('outbound URL fields', () => {
  it('are judged by the check in scope, each refusal at its own path', () => {
    const config = {
      webhook_url: 'http://inside/hook',
      output: { chat_url: 'http://inside/chat' },
      feeds: ['https://ok.example/feed', 'http://inside/feed'],
      scope: { url_list: ['http://inside/page'] },
    };
    expect(paths(withOutboundUrlCheck(check, () => configInputSchema.safeParse(config)))).toEqual([
      ['feeds.1', 'refused by the fetch guard: inside'],
      ['webhook_url', 'refused by the fetch guard: inside'],
      ['scope.url_list.0', 'refused by the fetch guard: inside'],
      ['output.chat_url', 'refused by the fetch guard: inside'],
    ]);
    const crawl = { url: 'https://site.example/', webhook: { url: 'http://inside/hook' } };
    expect(paths(withOutboundUrlCheck(check, () => crawlRequestSchema.safeParse(crawl)))).toEqual([
      ['webhook.url', 'refused by the fetch guard: inside'],
    ]);
  });

  it('leave page URLs to the fetch (a refused one becomes its row’s error, not the batch’s)', () => {
    const batch = { urls: ['http://inside/a', 'https://ok.example/'], webhook_url: 'https://hooks.example/' };
    expect(withOutboundUrlCheck(check, () => scrapeRequestSchema.safeParse(batch)).success).toBe(true);
  });

  it('are plain http(s) URLs outside a scope (a service re-reading a request the gateway checked)', () => {
    expect(configInputSchema.safeParse({ webhook_url: 'http://inside/hook' }).success).toBe(true);
  });
});
