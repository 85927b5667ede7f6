import { describe, expect, it } from '@jest/globals';
import type { CrawlPageResultMessage } from '@tidemark/contracts';
import { crawlEnding } from '../src/crawl/engine/crawl-end.js';
import { onePerPage } from '../src/crawl/engine/result-settler.js';

const none = { creditsExhausted: false, budgetHit: false, limitReached: false, depthReached: false };

describe('how a crawl ended', () => {
  it('is exhausted when it read what it found, whatever some pages answered', () => {
    expect(crawlEnding(none, { ok: 40, blocked: 2, error: 1 })).toEqual({
      status: 'done',
      stop: 'exhausted',
      error: null,
    });
  });

  it('names the first thing that cut it short: money, then the budget, the page limit, the depth', () => {
    expect(crawlEnding({ ...none, budgetHit: true, limitReached: true }, { ok: 3 }).stop).toBe('budget');
    expect(crawlEnding({ ...none, limitReached: true, depthReached: true }, { ok: 3 }).stop).toBe('limit');
    expect(crawlEnding({ ...none, depthReached: true }, { thin: 1 }).stop).toBe('depth');
    expect(crawlEnding({ ...none, creditsExhausted: true, budgetHit: true }, { ok: 3 })).toEqual({
      status: 'done',
      stop: 'credits_exhausted',
      error: null,
    });
  });

  it('fails with a reason when not one page could be read', () => {
    expect(crawlEnding(none, { blocked: 1 })).toEqual({
      status: 'error',
      stop: 'error',
      error: 'no page of the crawl could be read',
    });
    expect(crawlEnding({ ...none, creditsExhausted: true }, { error: 1, unfetched: 9 })).toEqual({
      status: 'error',
      stop: 'credits_exhausted',
      error: "no page of the crawl could be read: the workspace's credits ran out",
    });
  });

  it('a stored copy served counts as read', () => {
    expect(crawlEnding(none, { cached: 1, error: 4 }).status).toBe('done');
  });
});

describe('one result per page in a settling batch', () => {
  const result = (position: number, attempt: number, credits: number) =>
    ({ position, attempt, credits }) as unknown as CrawlPageResultMessage;

  it('keeps the latest dispatch of a page answered twice, and every other page once', () => {
    const kept = onePerPage([result(1, 1, 1), result(2, 1, 1), result(1, 2, 5), result(1, 2, 5)]);
    expect(kept.map((m) => [m.position, m.attempt])).toEqual([
      [1, 2],
      [2, 1],
    ]);
    expect(kept.reduce((sum, m) => sum + m.credits, 0)).toBe(6);
  });
});
