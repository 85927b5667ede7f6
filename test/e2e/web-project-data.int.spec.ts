// The web application's views of a run's data in a real browser (issue 18): the pages of a run
// with the query language and the verdict and link-graph filters, one page in full (markdown,
// screenshot, head, fields, what the filters removed), search by words and by selector, the link
// graph and discovery, exports as downloads, and the project's webhook with its delivery log and
// a redelivery.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type TestWeb } from '@tidemark/testkit';
import type { Browser, Page } from 'playwright-core';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { comparedRun } from '../support/runs.js';
import { checkScreen, ensureWebBuilt, launchBrowser, openApp, type AppSession } from '../support/web-app.js';

const JOURNEY_MS = 180_000;

describe('web app: a run’s pages, links, exports and webhooks', () => {
  let web: TestWeb;
  let hooks: { hits: string[]; server: Server; port: number };
  let t: TestFleet;
  let browser: Browser;
  let app: AppSession;
  let page: Page;
  let projectId = '';
  const crawlUrl = (path: string) => web.url('crawl.test', path);
  const rowLinks = () => page.locator('table tbody tr td:first-child a');

  beforeAll(async () => {
    await ensureWebBuilt();
    web = await startTestWeb();
    const hits: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        hits.push(body);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    hooks = { hits, server, port: (server.address() as AddressInfo).port };
    t = await startTestFleet({
      FETCH_HOST_MAP: `hooks.test=127.0.0.1:${hooks.port},${web.hostMap}`,
      CRAWL_TICK_MS: '50',
      DELIVERY_POLL_MS: '50',
      FLEET_BROWSER_POOL: '1',
    });
    browser = await launchBrowser();
    app = await openApp(browser, t);
    page = app.page;
    page.setDefaultTimeout(60_000);

    // A member signs up in the app; the project and its run are set up through the same API.
    await page.goto('/signup');
    await page.getByLabel('E-mail').fill('dee@crawl.test');
    await page.getByLabel('Password').fill('deep-links-2026');
    await page.getByLabel('Workspace name').fill('Crawl watch');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    await t.db.prisma.workspace.updateMany({ where: { name: 'Crawl watch' }, data: { plan: 'growth' } });
    const cookie = (await app.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const auth = { headers: { cookie } };
    const created = await t.call('POST', '/projects', {
      ...auth,
      body: {
        seed: crawlUrl('/'),
        name: 'Crawl site',
        config: {
          formats: ['markdown', 'screenshot'],
          STORE_HTML: 'always',
          fields: { heading: 'h1' },
          webhook_url: `http://hooks.test:${hooks.port}/tidemark`,
          webhook_events: ['run.finished'],
        },
      },
    });
    expect(created.status).toBe(201);
    projectId = created.body.id;
    await comparedRun(t, projectId, auth);
  }, 240_000);
  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await t?.stop();
    await new Promise((ok) => hooks?.server.close(ok));
    await web?.close();
  });

  it(
    'lists the pages of the run, filtered by the query language, by verdict and by link-graph flag',
    async () => {
      await page.goto(`/projects/${projectId}`);
      await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Pages' }).click();
      await page.getByRole('cell', { name: '/docs/deep/3' }).waitFor();
      await expect(rowLinks().count()).resolves.toBe(12);
      await checkScreen(page, 'pages');

      await page.getByLabel('Query').fill('url:/docs/deep');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/q=url%3A%2Fdocs%2Fdeep/);
      for (let i = 0; i < 50 && (await rowLinks().count()) !== 3; i++) await page.waitForTimeout(100);
      expect((await rowLinks().allInnerTexts()).sort()).toEqual(['/docs/deep/1', '/docs/deep/2', '/docs/deep/3']);

      await page.getByLabel('Query').fill('');
      await page.getByRole('checkbox', { name: 'robots' }).check();
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.getByRole('cell', { name: '/private/secret' }).waitFor();
      for (let i = 0; i < 50 && (await rowLinks().count()) !== 1; i++) await page.waitForTimeout(100);
      expect(await rowLinks().allInnerTexts()).toEqual(['/private/secret']);

      await page.getByRole('checkbox', { name: 'robots' }).uncheck();
      await page.getByLabel('Link graph').selectOption('orphan');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.getByRole('cell', { name: /\/orphan/ }).waitFor();
      for (let i = 0; i < 50 && (await rowLinks().count()) !== 2; i++) await page.waitForTimeout(100);
      // In the sitemap and linked from no page: /orphan, and /private/secret (robots.txt keeps it unread).
      expect((await rowLinks().allInnerTexts()).sort()).toEqual(['/orphan', '/private/secret']);

      // A query the language does not have: the API's envelope, shown with its request id.
      await page.getByLabel('Link graph').selectOption('');
      await page.getByLabel('Query').fill('colour:blue');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page
        .getByRole('alert')
        .getByText(/Request id: req_/)
        .waitFor();
    },
    JOURNEY_MS,
  );

  it(
    'shows one page in full: markdown, screenshot, head, fields and what the filters removed',
    async () => {
      await page.goto(`/projects/${projectId}/pages`);
      await page.getByRole('link', { name: '/about', exact: true }).click();
      await page.getByRole('heading', { level: 2, name: 'About' }).waitFor();
      // The markdown rendered: its heading is a heading of the page.
      await page.locator('.markdown').getByRole('heading', { name: 'About' }).waitFor();
      const shot = page.getByRole('img', { name: /^Screenshot of / });
      await shot.waitFor();
      for (let i = 0; i < 50 && !(await shot.evaluate((img: HTMLImageElement) => img.naturalWidth)); i++)
        await page.waitForTimeout(100);
      expect(await shot.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
      await page
        .getByRole('definition')
        .filter({ hasText: /^About$/ })
        .first()
        .waitFor();
      await page.getByText('"About"').waitFor();
      await page.getByRole('button', { name: 'Show what the filters removed' }).click();
      await page
        .getByText(/What the content filters took out|The filters took nothing out of this page/)
        .first()
        .waitFor();
      await checkScreen(page, 'page-in-full');
    },
    JOURNEY_MS,
  );

  it(
    'searches the stored pages by words and by selector',
    async () => {
      await page.goto(`/projects/${projectId}/pages`);
      const search = page.getByRole('region', { name: 'Search the stored pages' });
      await search.getByLabel('Search for').fill('"Deep three"');
      await search.getByRole('button', { name: 'Search' }).click();
      await search
        .getByRole('status')
        .getByText(/^1 of \d+ pages match/)
        .waitFor();
      await search.getByRole('link', { name: '/docs/deep/3' }).waitFor();

      await search.getByLabel('Search for').fill('article ul li a[href="/docs/b"]');
      await search.getByLabel('In').selectOption('selector');
      await search.getByRole('button', { name: 'Search' }).click();
      await search
        .getByRole('status')
        .getByText(/^2 of \d+ pages match/)
        .waitFor();
      expect((await search.getByRole('status').getByRole('link').allInnerTexts()).sort()).toEqual([
        '/docs/',
        '/docs/a',
      ]);
      await checkScreen(page, 'search');
    },
    JOURNEY_MS,
  );

  it(
    'shows the link graph (orphans, unlisted, dead ends) and discovery’s sitemap tree',
    async () => {
      await page.goto(`/projects/${projectId}/links`);
      const panel = page.getByRole('tabpanel');
      await panel.getByRole('cell', { name: /\/orphan/ }).waitFor();
      await page.getByRole('tab', { name: 'Unlisted' }).click();
      await page
        .getByRole('tabpanel', { name: 'Unlisted' })
        .getByRole('cell', { name: /\/unlisted/ })
        .first()
        .waitFor();
      await page.getByRole('tab', { name: 'Dead ends' }).click();
      await page
        .getByRole('tabpanel', { name: 'Dead ends' })
        .getByRole('cell', { name: /\/docs\/deep\/3/ })
        .first()
        .waitFor();

      await page.getByRole('button', { name: 'Take a new snapshot' }).click();
      const tree = page.getByRole('table', { name: 'The sitemap tree' });
      await tree.waitFor({ timeout: 60_000 });
      await tree.getByRole('button', { name: '/sitemap.xml' }).click();
      await page.getByRole('heading', { name: /URLs listed by \/sitemap\.xml/ }).waitFor();
      await page
        .getByRole('listitem')
        .filter({ hasText: /^\/orphan/ })
        .first()
        .waitFor();
      await checkScreen(page, 'links-and-discovery');
    },
    JOURNEY_MS,
  );

  it(
    'downloads an export',
    async () => {
      await page.goto(`/projects/${projectId}/exports`);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download llms', exact: true }).click(),
      ]);
      const text = await readFile((await download.path())!, 'utf8');
      expect(text).toContain(crawlUrl('/about'));
      await checkScreen(page, 'exports');
    },
    JOURNEY_MS,
  );

  it(
    "shows the webhook's health and delivery log, and redelivers one",
    async () => {
      // run.finished went out when the run ended.
      for (let i = 0; i < 100 && hooks.hits.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(hooks.hits.length).toBeGreaterThan(0);
      // The delivery is settled as delivered by the delivery worker once the receiver has answered,
      // after the hit above: waited for, as a redelivery asked while its send is still being settled
      // is overwritten by that settling (and nothing is sent again).
      let settled = false;
      for (let i = 0; i < 100 && !settled; i++) {
        const log = await page.request.get(`/v1/webhooks/deliveries?projectId=${projectId}`);
        const { data } = (await log.json()) as { data: { status: string }[] };
        settled = data.length > 0 && data.every((d) => d.status === 'delivered');
        if (!settled) await new Promise((r) => setTimeout(r, 100));
      }
      expect(settled).toBe(true);
      const before = hooks.hits.length;
      await page.goto(`/projects/${projectId}/webhooks`);
      await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
      const redeliver = page.getByRole('button', { name: /^Redeliver run\.finished to / }).first();
      await redeliver.waitFor();
      await checkScreen(page, 'project-webhooks');
      await redeliver.click();
      for (let i = 0; i < 100 && hooks.hits.length === before; i++) await new Promise((r) => setTimeout(r, 100));
      expect(hooks.hits.length).toBe(before + 1);
      expect(JSON.parse(hooks.hits.at(-1)!)).toMatchObject({ event: 'run.finished' });

      // The workspace's channels: this project's webhook with its health, and the same log.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Webhooks and chat channels' }).waitFor();
      const channel = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Crawl site' }) });
      await channel.getByText(/webhook: http:\/\/hooks\.test/).waitFor();
      await channel.getByText(/\d+ delivered/).waitFor();
      await page
        .getByRole('button', { name: /^Redeliver run\.finished to / })
        .first()
        .waitFor();
      await checkScreen(page, 'webhooks');
    },
    JOURNEY_MS,
  );

  it(
    'fits a phone: the project screens at 390 px, nothing wider than the window, axe clean',
    async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      const about = encodeURIComponent(crawlUrl('/about'));
      for (const [path, name] of [
        ['', 'overview'],
        ['/changes', 'changes'],
        ['/pages', 'pages'],
        [`/page?url=${about}`, 'page'],
        ['/links', 'links'],
        ['/exports', 'exports'],
        ['/webhooks', 'webhooks'],
        ['/settings', 'settings'],
      ] as const) {
        await page.goto(`/projects/${projectId}${path}`);
        await page.getByRole('heading', { level: 1, name: 'Crawl site' }).waitFor();
        await page.getByRole('status').filter({ hasText: 'Loading' }).first().waitFor({ state: 'detached' });
        await checkScreen(page, `project-${name}-390`);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    },
    JOURNEY_MS,
  );

  it('made no request outside the app and the API routes, and threw no error', () => {
    expect(app.strayRequests()).toEqual([]);
    expect(app.pageErrors).toEqual([]);
  });
});
