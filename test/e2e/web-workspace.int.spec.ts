// The web application's workspace journeys in a real browser (issue 18): keys (the secret shown
// once, copied), a one-off scrape and crawl, usage as a chart and the monitor, members and an
// invitation accepted by someone with a workspace of their own (who then switches between the
// two), the notifications inbox, and two-factor sign-in set up and then asked for.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HANDBOOK, startTestWeb, type TestWeb } from '@tidemark/testkit';
import type { Browser, Page } from 'playwright-core';
import { stepAt, totpCode } from '../support/authenticator.js';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { checkScreen, ensureWebBuilt, launchBrowser, openApp, type AppSession } from '../support/web-app.js';

const JOURNEY_MS = 180_000;
const OWNER = { name: 'Ana Harbour', email: 'ana@harbour.test', password: 'tide-tables-2026', workspace: 'Harbour' };

describe('web app: the workspace around the projects', () => {
  let web: TestWeb;
  let t: TestFleet;
  let browser: Browser;
  let app: AppSession;
  let page: Page;
  /** An admin key made in the app, for setting the scene through the API. */
  let key = '';

  const nav = async (name: string, heading: string | RegExp) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  };
  const signUp = async (p: Page, who: typeof OWNER) => {
    await p.goto('/signup');
    await p.getByLabel('Your name').fill(who.name);
    await p.getByLabel('E-mail').fill(who.email);
    await p.getByLabel('Password').fill(who.password);
    await p.getByLabel('Workspace name').fill(who.workspace);
    await p.getByRole('button', { name: 'Create account' }).click();
    await p.getByRole('heading', { name: 'Projects' }).waitFor();
  };

  beforeAll(async () => {
    await ensureWebBuilt();
    web = await startTestWeb();
    t = await startTestFleet({
      FETCH_HOST_MAP: web.hostMap,
      CRAWL_TICK_MS: '50',
      DELIVERY_POLL_MS: '50',
      FLEET_BROWSER_POOL: '1',
    });
    browser = await launchBrowser();
    app = await openApp(browser, t);
    page = app.page;
    // The fleet shares the machine with Chromium: give its answers time on a loaded machine.
    page.setDefaultTimeout(60_000);
    await signUp(page, OWNER);
    // A plan whose rate the journeys' reads stay under.
    await t.db.prisma.workspace.updateMany({ where: { name: OWNER.workspace }, data: { plan: 'growth' } });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await t?.stop();
    await web?.close();
  });

  it(
    'creates API keys: the secret shown once with a copy button, working at once, revoked from the list',
    async () => {
      await nav('Keys', 'API keys');
      await page.getByText('No keys yet.').waitFor();
      const create = async (name: string, scope: string) => {
        await page.getByLabel('Key name').fill(name);
        await page.getByLabel('Scope').selectOption(scope);
        await page.getByRole('button', { name: 'Create key' }).click();
        await page.getByRole('status').getByText(`The secret of ${name}`).waitFor();
        return page.getByLabel('Secret').innerText();
      };
      const ci = await create('ci', 'read');
      expect(ci).toMatch(/^service_/);
      await page.getByRole('button', { name: 'Copy the secret' }).click();
      await page.getByRole('button', { name: 'Copied' }).waitFor();
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(ci);
      expect((await t.call('GET', '/me', { key: ci })).status).toBe(200);
      await page.getByRole('cell', { name: 'ci', exact: true }).waitFor();
      await checkScreen(page, 'keys');

      key = await create('tools', 'admin');
      // Shown once: after a reload the list has the keys, not their secrets.
      await page.reload();
      await page.getByRole('cell', { name: 'tools', exact: true }).waitFor();
      await expect(page.getByLabel('Secret').count()).resolves.toBe(0);
      await expect(page.getByText(ci).count()).resolves.toBe(0);

      page.once('dialog', (d) => void d.accept());
      await page.getByRole('button', { name: 'Revoke ci' }).click();
      await page.getByRole('button', { name: 'Revoke ci' }).waitFor({ state: 'detached' });
      expect((await t.call('GET', '/me', { key: ci })).status).toBe(401);
      // A name the API refuses: its envelope, with the request id to quote.
      await page.getByLabel('Key name').evaluate((el) => el.removeAttribute('maxlength'));
      await page.getByLabel('Key name').fill('x'.repeat(101));
      await page.getByRole('button', { name: 'Create key' }).click();
      await page
        .getByRole('alert')
        .getByText(/Request id: req_/)
        .waitFor();
    },
    JOURNEY_MS,
  );

  it(
    'scrapes one page: the verdict, its markdown and its screenshot',
    async () => {
      await nav('Scrape', 'Scrape a page');
      await page.getByLabel('Page address').fill(web.url('pages.test', '/article'));
      await page.getByLabel(/Take a screenshot/).check();
      await page.getByRole('button', { name: 'Scrape' }).click();
      const result = page.getByRole('article', { name: 'Result' });
      await result.getByRole('heading', { name: 'How tides work', level: 2 }).waitFor({ timeout: 60_000 });
      await result.locator('.count', { hasText: 'verdict' }).getByText('ok').waitFor();
      await result.locator('.count', { hasText: 'engine' }).getByText('browser').waitFor();
      await result.getByRole('heading', { name: 'The moon' }).waitFor();
      const shot = result.getByRole('img', { name: /^Screenshot of / });
      await expect(shot.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).resolves.toBe(1366);
      await checkScreen(page, 'scrape');

      // A page the site refuses: the verdict says so, with its code.
      await page.getByLabel(/Take a screenshot/).uncheck();
      await page.getByLabel('Page address').fill(web.url('pages.test', '/nowhere'));
      await page.getByRole('button', { name: 'Scrape' }).click();
      await result.locator('.count', { hasText: 'code' }).getByText('NOT_FOUND').waitFor();
    },
    JOURNEY_MS,
  );

  it(
    'crawls a site: live progress, the pages paged with next, one page in full, kept as a project',
    async () => {
      await nav('Crawl', 'Crawl a site');
      await page.getByLabel('Start address').fill(web.url('handbook.test', '/'));
      await page.getByLabel('Most pages').fill('40');
      await page.getByRole('button', { name: 'Start the crawl' }).click();
      await page.getByRole('progressbar', { name: 'Pages crawled' }).waitFor();
      await page.getByRole('heading', { name: /^Crawl crawl_\S+ done$/ }).waitFor({ timeout: 90_000 });
      const rows = page.locator('table tbody tr');
      await page.getByRole('button', { name: 'Load more' }).waitFor();
      await expect(rows.count()).resolves.toBe(25);
      await page.getByRole('button', { name: 'Load more' }).click();
      const all = HANDBOOK.pages.length + HANDBOOK.disallowed.length;
      await page.locator(`table tbody tr:nth-child(${all})`).waitFor();
      await expect(rows.count()).resolves.toBe(all);
      await expect(page.getByRole('button', { name: 'Load more' }).count()).resolves.toBe(0);
      await checkScreen(page, 'crawl');

      await page.getByRole('link', { name: '/guides/locks', exact: true }).click();
      await page.getByRole('article', { name: 'Result' }).getByRole('heading', { name: 'Locks' }).first().waitFor();
      await page.getByRole('link', { name: 'Back to the pages' }).click();

      await page.getByLabel('Project name').fill('Handbook, kept');
      await page.getByRole('button', { name: 'Keep as a project' }).click();
      await page.waitForURL(/\/projects\/prj_[a-z0-9]+$/);
      await page.getByRole('heading', { name: 'Handbook, kept' }).first().waitFor();
    },
    JOURNEY_MS,
  );

  it(
    'shows what runs now (work, lanes, workers, the browser pool) and usage as a chart',
    async () => {
      // A slow crawl (a second between pages) is running while the monitor is read, and ends.
      const crawl = await t.call('POST', '/crawl', {
        key,
        body: { url: web.url('tree.test', '/'), limit: 8, delay: 1 },
      });
      expect(crawl.status).toBe(202);
      await nav('Monitor', 'Monitor');
      await page.getByRole('cell', { name: new RegExp(crawl.body.id) }).waitFor();
      await page.getByRole('rowheader', { name: 'scrape-page' }).waitFor();
      await page.getByRole('rowheader', { name: 'gateway' }).first().waitFor();
      await page.getByText(/1 of 1 browsers up/).waitFor();
      await checkScreen(page, 'monitor');
      // Read again every two seconds: the crawl leaves the list when it ends.
      await page
        .getByRole('cell', { name: new RegExp(crawl.body.id) })
        .waitFor({ state: 'detached', timeout: 120_000 });

      await nav('Usage', 'Credits and usage');
      await page.getByRole('img', { name: /^Pages fetched and credits used per day/ }).waitFor();
      const figure = page.locator('dl.month div', { hasText: 'Pages fetched' }).locator('dd');
      const fetched = Number((await figure.innerText()).replace(/\D/g, ''));
      // The scrapes and the crawl above.
      expect(fetched).toBeGreaterThan(HANDBOOK.pages.length);
      await page.getByText('The figures by day').click();
      const today = new Date().toISOString().slice(0, 10);
      await page.getByRole('rowheader', { name: today }).waitFor();
      await checkScreen(page, 'usage');
    },
    JOURNEY_MS,
  );

  it(
    'invites someone with a workspace of their own: they join, switch between the two, and their role changes',
    async () => {
      await nav('Members', 'Members');
      await page.getByRole('cell', { name: /ana@harbour\.test/ }).waitFor();
      await page.getByLabel('E-mail').fill('ben@boats.test');
      await page.getByLabel('Role', { exact: true }).selectOption('member');
      await page.getByRole('button', { name: 'Send invitation' }).click();
      const link = await page.getByLabel('Invitation link').innerText();
      expect(link).toMatch(/\/invite\?token=/);
      await page.getByRole('cell', { name: 'ben@boats.test', exact: true }).waitFor();
      await checkScreen(page, 'members');

      const ben = await openApp(browser, t);
      try {
        const p = ben.page;
        p.setDefaultTimeout(60_000);
        await signUp(p, { name: 'Ben', email: 'ben@boats.test', password: 'ben-boats-2026', workspace: 'Boats' });
        await p.goto(new URL(link).pathname + new URL(link).search);
        await p.getByText('You are signed in as ben@boats.test.').waitFor();
        await p.getByRole('button', { name: 'Join Harbour' }).click();
        await p.getByRole('heading', { name: 'Projects' }).waitFor();
        const switcher = p.getByLabel('Workspace');
        await expect(switcher.locator('option').allInnerTexts()).resolves.toEqual(
          expect.arrayContaining(['Harbour (member)', 'Boats (owner)']),
        );
        // Harbour's project (the kept crawl) is there; Boats has none.
        await switcher.selectOption({ label: 'Harbour (member)' });
        await p.getByRole('link', { name: 'Handbook, kept' }).waitFor();
        await switcher.selectOption({ label: 'Boats (owner)' });
        await p.getByText('No projects yet').waitFor();
        expect(ben.strayRequests()).toEqual([]);
        expect(ben.pageErrors).toEqual([]);
      } finally {
        await ben.close();
      }

      await page.reload();
      await page.getByRole('cell', { name: 'Ben · ben@boats.test' }).waitFor();
      const patched = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes('/members/'));
      await page.getByLabel('Role of ben@boats.test').selectOption('viewer');
      expect((await patched).status()).toBe(200);
      await page.reload();
      await expect(page.getByLabel('Role of ben@boats.test').inputValue()).resolves.toBe('viewer');
      await expect(page.getByText('No invitation is waiting.').isVisible()).resolves.toBe(true);
    },
    JOURNEY_MS,
  );

  it(
    "keeps a run's notice in the inbox until it is dismissed",
    async () => {
      // A project run through the API (the key made above) finds every page new: a notice for
      // each member (no mail host in this fleet).
      const project = await t.call('POST', '/projects', {
        key,
        body: { seed: web.url('handbook.test', '/'), name: 'Handbook watch', config: { max_pages: 10 } },
      });
      expect(project.status).toBe(201);
      const started = await t.call('POST', `/projects/${project.body.id}/runs`, { key });
      expect(started.status).toBe(202);
      for (let i = 0; i < 600; i++) {
        const changes = await t.call('GET', `/projects/${project.body.id}/changes?run_id=${started.body.id}`, { key });
        if (changes.status === 200) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      let waiting = 0;
      for (let i = 0; i < 100 && waiting === 0; i++) {
        const inbox = await page.request.get('/v1/me/notifications');
        waiting = ((await inbox.json()) as { data: { title: string }[] }).data.filter((n) =>
          n.title.startsWith('Handbook watch'),
        ).length;
        if (waiting === 0) await page.waitForTimeout(200);
      }
      expect(waiting).toBe(1);
      await nav('Notifications', 'Notifications');
      const notice = page.getByRole('listitem').filter({ hasText: 'Handbook watch' });
      await notice.getByText(/pages? changed/).waitFor();
      await notice.getByRole('link', { name: 'Open the project' }).waitFor();
      await checkScreen(page, 'notifications');
      await notice.getByRole('button', { name: /^Dismiss / }).click();
      await notice.waitFor({ state: 'detached' });
      // Dismissed for good: the inbox no longer has it.
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Notifications' }).waitFor();
      await page
        .getByRole('button', { name: /^Dismiss |Load more/ })
        .or(page.getByText('Nothing new'))
        .first()
        .waitFor();
      await expect(notice.count()).resolves.toBe(0);
    },
    JOURNEY_MS,
  );

  it(
    'sets up two-factor sign-in, then asks for the code when signing in',
    async () => {
      await nav('Account', 'Your account');
      await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
      const secret = await page.getByLabel('Authenticator key').innerText();
      const step = stepAt(Date.now());
      await page.getByLabel('Code from your authenticator app').fill(totpCode(secret, step - 1));
      await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
      await page.getByText('On: signing in asks for a code').waitFor();
      await checkScreen(page, 'account');

      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.waitForURL('**/signin');
      await page.getByLabel('E-mail').fill(OWNER.email);
      await page.getByLabel('Password').fill(OWNER.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Two-factor code' }).waitFor();
      await page.getByLabel('Code from your authenticator app').fill(totpCode(secret, step));
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Projects' }).waitFor();
    },
    JOURNEY_MS,
  );

  it(
    'fits a phone: every workspace screen at 390 px, nothing wider than the window, axe clean',
    async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      for (const [path, heading] of [
        ['/keys', 'API keys'],
        ['/members', 'Members'],
        ['/notifications', 'Notifications'],
        ['/usage', 'Credits and usage'],
        ['/monitor', 'Monitor'],
        ['/scrape', 'Scrape a page'],
        ['/crawl', 'Crawl a site'],
        ['/account', 'Your account'],
      ] as const) {
        await page.goto(path);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        await page.getByRole('status').filter({ hasText: 'Loading' }).waitFor({ state: 'detached' });
        await checkScreen(page, `${path.slice(1)}-390`);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    },
    JOURNEY_MS,
  );

  it('made no request outside the app and the API routes, and threw no error', () => {
    expect(app.requests.length).toBeGreaterThan(20);
    expect(app.strayRequests()).toEqual([]);
    expect(app.pageErrors).toEqual([]);
  });
});
