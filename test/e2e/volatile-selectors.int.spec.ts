import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type Site, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { comparedRun } from '../support/runs.js';

/** Prose that reads as a real page (the verdict's word floor and the main-content finder). */
const prose = (topic: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `<p>The ${topic} harbour guide, part ${i + 1}, covers moorings, tides and the walk along the quay for visitors.</p>`,
  ).join('');

const page = (title: string, body: string) => ({
  type: 'text/html; charset=utf-8',
  body: `<!doctype html><html lang="en"><head><title>${title}</title></head><body>
<nav><a href="/">Home</a> <a href="/ferries">Ferries</a></nav><main><h1>${title}</h1>${body}</main></body></html>`,
});

/** Headlines that change every run; nothing in them reads as noise on its face (no dates, no counters). */
const HEADLINES = [
  '',
  'Ferry crews practise the winter rescue drill at the north pier',
  'The lighthouse keeper reopens the tower stairs for guided tours',
  'Fishermen bring in a record catch of mackerel before the storm',
];

/**
 * Both pages carry a block that changes every run. On the home page it is marked volatile by
 * the project's selector (`.ticker`); on the ferries page the same kind of block is not (the
 * control). The third run also edits the home page's prose.
 */
const site = (state: { run: number }): Site => ({
  '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
  '/': () =>
    page(
      'Harbour',
      `<p>${state.run === 3 ? 'The harbour office opens at seven every morning.' : 'The harbour office opens at eight every morning.'}</p>
<div class="ticker"><p>Latest: ${HEADLINES[state.run]}</p></div>${prose('home', 8)}`,
    ),
  '/ferries': () =>
    page('Ferries', `<div class="headline"><p>Latest: ${HEADLINES[state.run]}</p></div>${prose('ferry', 8)}`),
});

describe('volatile_selectors through the fleet: changes inside the marked elements are not changes', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  const state = { run: 1 };

  beforeAll(async () => {
    web = await startTestWeb();
    web.addSite('ticker.test', site(state));
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '50' });
    key = (await t.createWorkspace('volatile')).apiKey;
  });
  afterAll(async () => {
    await t.stop();
    await web.close();
  });

  const kindOf = (record: { entries: { url: string; kind: string }[] }, path: string) =>
    record.entries.find((e) => new URL(e.url).pathname === path)?.kind ?? 'same';

  it('a block marked volatile changing each run is not modified; an edit elsewhere still is', async () => {
    const project = await t.call('POST', '/projects', {
      key,
      body: {
        seed: web.url('ticker.test', '/'),
        config: { useSitemap: false, formats: ['markdown', 'cleanHtml'], volatile_selectors: ['.ticker'] },
      },
    });
    expect(project.status).toBe(201);
    const id = project.body.id as string;
    const saved = await t.call('GET', `/projects/${id}`, { key });
    expect(saved.body.config.advanced.volatile_selectors).toEqual(['.ticker']);

    state.run = 1;
    const first = await comparedRun(t, id, { key });
    expect(first.record.counts).toMatchObject({ added: 2 });

    state.run = 2;
    const second = (await comparedRun(t, id, { key })).record;
    // The home page's only change is inside .ticker: same. The ferries page's unmarked block: modified.
    expect(kindOf(second, '/')).toBe('same');
    expect(kindOf(second, '/ferries')).toBe('modified');
    expect(second.counts).toMatchObject({ modified: 1, same: 1 });
    expect(second.counts.volatileBlocks).toBeGreaterThan(0);

    // The page's word diff and markup comparison set the ticker aside too.
    const home = web.url('ticker.test', '/');
    const words = await t.call('GET', `/projects/${id}/changes/page?url=${encodeURIComponent(home)}`, { key });
    expect(words.status).toBe(200);
    expect(words.body.hunks).toEqual([]);
    const markup = await t.call('GET', `/projects/${id}/changes/markup?url=${encodeURIComponent(home)}`, { key });
    expect(markup.status).toBe(200);
    expect(markup.body.changes).toEqual([]);
    const ferries = web.url('ticker.test', '/ferries');
    const control = await t.call('GET', `/projects/${id}/changes/markup?url=${encodeURIComponent(ferries)}`, { key });
    expect(JSON.stringify(control.body.changes)).toContain('lighthouse keeper');

    state.run = 3;
    const third = (await comparedRun(t, id, { key })).record;
    expect(kindOf(third, '/')).toBe('modified');
    const entry = third.entries.find((e: { url: string }) => new URL(e.url).pathname === '/');
    expect(entry.reason).toBeUndefined();
    const edit = await t.call('GET', `/projects/${id}/changes/page?url=${encodeURIComponent(home)}`, { key });
    const hunks = edit.body.hunks as { removed: string; added: string }[];
    expect(hunks.map((h) => `${h.removed} > ${h.added}`).join(' | ')).toBe('eight > seven');
  });
});
