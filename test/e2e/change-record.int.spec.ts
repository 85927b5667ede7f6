import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type Site, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type Answer, type TestFleet } from '../support/fleet.js';
import { openApiChecker } from '../support/openapi.js';
import { comparedRun } from '../support/runs.js';

/**
 * A harbour site crawled twice. Every page carries noise that changes each run (a timestamp, a
 * visitor counter, a rotating advertisement); between the runs one page is edited, one removed,
 * one added, the members' section answers 403, and the price on the rates page moves into a
 * new box (same value: its field selector breaks).
 */
const harbour = (state: { run: number }): Site => {
  const prose = (topic: string) =>
    Array.from(
      { length: 6 },
      (_, i) => `<p>The ${topic} guide, part ${i + 1}, covers moorings, tides and the walk along the quay.</p>`,
    ).join('');
  const page =
    (title: string, body: string, links: [string, string][] = []) =>
    () => {
      const run = state.run;
      const ad = ['Sail with Harbour Bank', 'Fresh fish daily at the quay', 'Rent a kayak by the hour'][run % 3]!;
      return {
        type: 'text/html; charset=utf-8',
        body: `<!doctype html><html lang="en"><head><title>${title}</title></head><body>
<nav>${['/', '/about', '/rates', '/blog/', '/members/'].map((l) => `<a href="${l}">${l}</a>`).join(' ')}</nav>
<main><h1>${title}</h1>${body}<ul>${links.map(([href, text]) => `<li><a href="${href}">${text}</a></li>`).join('')}</ul>
<p>Last updated: 2026-03-0${run} 1${run}:0${run}:00 UTC · <span class="visitors">${100 + run * 37}</span> visitors online</p>
<aside class="ad"><p>Advertisement</p><p>${ad}</p></aside></main></body></html>`,
      };
    };
  const blocked = () => ({ status: 403, type: 'text/html', body: '<html><body><h1>Access denied</h1></body></html>' });
  return {
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
    '/': page('Harbour', prose('home')),
    '/about': () =>
      page(
        'About',
        state.run === 1
          ? `<p>The harbour was built in 1901 and is run by the town council.</p>${prose('about')}`
          : `<p>The harbour was built in 1901 and is run by a trust of local boat owners since the spring.</p>${prose('about')}`,
      )(),
    '/rates': () =>
      page(
        'Rates',
        `${prose('rates')}${
          state.run === 1
            ? '<div class="meta"><span class="price">€25.00</span></div>'
            : '<div class="buy-box"><span class="amount" itemprop="price">€25.00</span><button>Book</button></div>'
        }`,
      )(),
    '/blog/': () =>
      page(
        'Blog',
        prose('blog'),
        state.run === 1
          ? ([
              ['/blog/storm', 'The spring storm'],
              ['/blog/old', 'Old news from the quay'],
            ] as [string, string][])
          : ([
              ['/blog/storm', 'The spring storm'],
              ['/blog/new', 'The new pier opens'],
            ] as [string, string][]),
      )(),
    '/blog/storm': page('Storm', prose('storm')),
    '/blog/old': page('Old news', prose('old')),
    '/blog/new': page('New pier', prose('pier')),
    '/members/': () =>
      state.run === 1 ? page('Members', prose('members'), [['/members/berths', 'Berth list']])() : blocked(),
    '/members/berths': () => (state.run === 1 ? page('Berths', prose('berths'))() : blocked()),
  };
};

describe('a change record through the fleet, against a site that changed between runs', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  const state = { run: 1 };
  // Just enough of the OpenAI chat-completions protocol for the change digest.
  const DIGEST = {
    summary: 'The harbour is now run by a trust of boat owners; a new pier post appeared.',
    points: ['About: run by a trust of local boat owners', 'Blog: the new pier opens'],
    significant: true,
  };
  let model: Server;
  const prompts: string[] = [];

  beforeAll(async () => {
    model = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        prompts.push(body);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            choices: [
              { index: 0, message: { role: 'assistant', content: JSON.stringify(DIGEST) }, finish_reason: 'stop' },
            ],
            usage: { prompt_tokens: 100, completion_tokens: 40, total_tokens: 140 },
          }),
        );
      });
    });
    await new Promise<void>((ok) => model.listen(0, '127.0.0.1', ok));
    web = await startTestWeb();
    web.addSite('quay.test', harbour(state));
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '50' });
    const ws = await t.createWorkspace('record');
    key = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
  });
  afterAll(async () => {
    await t.stop();
    await web.close();
    await new Promise((ok) => model.close(ok));
  });

  /** Runs the project and answers its change record. */
  const run = async (projectId: string) => (await comparedRun(t, projectId, { key })).record;
  const paths = (record: { entries: { url: string; kind: string }[] }, kind: string) =>
    record.entries
      .filter((e) => e.kind === kind)
      .map((e) => new URL(e.url).pathname)
      .sort();

  it('counts what changed, sets noise aside, withholds the blocked section and repoints the moved field', async () => {
    const connection = await t.call('POST', '/connections', {
      key,
      body: {
        provider: 'openai_compatible',
        name: 'local model',
        config: { base_url: `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`, model: 'tiny' },
        secrets: { api_key: 'sk-local' },
      },
    });
    expect(connection.status).toBe(201);
    const project = await t.call('POST', '/projects', {
      key,
      body: {
        seed: web.url('quay.test', '/'),
        config: {
          useSitemap: false,
          formats: ['markdown', 'rawHtml'],
          fields: { price: '.meta .price' },
          change_digest: { connection_id: connection.body.id, focus: 'who runs the harbour' },
        },
      },
    });
    const id = project.body.id as string;
    state.run = 1;
    const first = await run(id);
    expect(first.counts).toMatchObject({ added: 8, removed: 0 });

    state.run = 2;
    const second = await run(id);
    expect(second.baseline).toBe(first.runId);
    expect(second.coverage).toMatchObject({ verdict: true });
    expect(paths(second, 'added')).toEqual(['/blog/new']);
    expect(paths(second, 'removed')).toEqual(['/blog/old']);
    // Only the real edit: the timestamp, the counter and the rotating ad on every page are noise.
    // (The blog's list of posts changed too, but a bare list of links is not main content.)
    expect(paths(second, 'modified')).toEqual(['/about']);
    // The members' section answered 403: not removed, not called changed.
    expect([...paths(second, 'unverified'), ...paths(second, 'withheld')].sort()).toEqual([
      '/members/',
      '/members/berths',
    ]);
    expect(second.counts).toMatchObject({ added: 1, removed: 1, modified: 1, same: 4, selectorBreaks: 1 });
    expect(second.counts.volatileBlocks).toBeGreaterThan(0);

    // The word diff shows the edited words.
    const about = second.entries.find((e: { url: string }) => e.url.endsWith('/about'));
    const diff = await t.call('GET', `/projects/${id}/changes/page?url=${encodeURIComponent(about.url)}`, { key });
    const hunks = diff.body.hunks as { removed: string; added: string }[];
    expect(hunks.map((h) => h.removed).join(' ')).toContain('town council');
    expect(hunks.map((h) => h.added).join(' ')).toContain('a trust of local boat owners since');

    // The price moved: a selector break, repointed to where the same value now lives.
    const rates = second.entries.find((e: { url: string }) => e.url.endsWith('/rates'));
    expect(rates.selectorBreaks).toEqual([
      {
        field: 'price',
        selector: '.meta .price',
        repointed: { selector: expect.any(String), value: '€25.00', confidence: expect.any(Number) },
      },
    ]);
    expect(rates.selectorBreaks[0].repointed.confidence).toBeGreaterThanOrEqual(0.65);
    // The same value: nothing changed on the page but where the price sits.
    expect(rates.kind).toBe('same');

    // The model-written digest of the change set lands on the record (delivery writes it).
    let digest = null;
    for (let i = 0; i < 100 && !digest; i++) {
      digest = (await t.call('GET', `/projects/${id}/changes?run_id=${second.runId}`, { key })).body.digest;
      if (!digest) await new Promise((r) => setTimeout(r, 100));
    }
    expect(digest).toEqual(DIGEST);
    expect(prompts.some((p) => p.includes('who runs the harbour'))).toBe(true);

    // The markup comparison of the edited page (its html is stored in both runs).
    const markup = await t.call('GET', `/projects/${id}/changes/markup?url=${encodeURIComponent(about.url)}`, { key });
    expect(markup.status).toBe(200);
    expect(markup.body).toMatchObject({ url: about.url, runId: second.runId, baseline: first.runId });
    expect(markup.body.changes.some((c: { kind: string; after: string | null }) => c.after?.includes('trust'))).toBe(
      true,
    );
    // The rest is the noise the word diff sets aside, by the same rules: the timestamp, the
    // visitor counter in an element of its own, the rotating ad.
    type Change = { path: string; kind: string; before: string | null; after: string | null; volatile: boolean };
    const changes = markup.body.changes as Change[];
    expect(changes.find((c) => c.path.endsWith('span.visitors'))).toMatchObject({
      kind: 'text',
      before: '137',
      after: '174',
      volatile: true,
    });
    expect(changes.filter((c) => !c.volatile).map((c) => c.after)).toEqual([expect.stringContaining('trust')]);

    // The record with its digest, selector breaks and withheld pages, and both page comparisons,
    // are what the OpenAPI document declares (its schemas name every field).
    const check = openApiChecker((await t.call('GET', '/docs/openapi.json')).body);
    const conforms = (path: string, method: string, res: Answer) => check.conforms(path, method, res);
    conforms(
      '/projects/{id}/changes',
      'get',
      await t.call('GET', `/projects/${id}/changes?run_id=${second.runId}`, { key }),
    );
    conforms('/projects/{id}/changes/page', 'get', diff);
    conforms('/projects/{id}/changes/markup', 'get', markup);
  }, 120_000);
});
