// The web application's core journey in a real browser: a person signs up, creates a project
// for a test-web site that changes between runs, runs it twice, and reads the change record and
// a page's diff, without curl (issue 18's resolution bar).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type TestWeb } from '@tidemark/testkit';
import type { Browser, Page } from 'playwright-core';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { checkScreen, ensureWebBuilt, launchBrowser, openApp, type AppSession } from '../support/web-app.js';

const JOURNEY_MS = 240_000;

describe('web app: watch a site and see what changed', () => {
  let web: TestWeb;
  let t: TestFleet;
  let browser: Browser;
  let app: AppSession;
  let page: Page;
  let projectUrl = '';

  beforeAll(async () => {
    await ensureWebBuilt();
    web = await startTestWeb();
    // harbour.test shows version A of its pages in the first run and version B in the second.
    web.harbour.auto = false;
    web.harbour.edition = 1;
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '50', DELIVERY_POLL_MS: '50' });
    browser = await launchBrowser();
    app = await openApp(browser, t);
    page = app.page;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await t?.stop();
    await web?.close();
  });

  it(
    'signs up and lands on an empty project list',
    async () => {
      await page.goto('/');
      await expect(page.waitForURL('**/signin')).resolves.toBeUndefined();
      await checkScreen(page, 'sign-in');
      await page.getByRole('link', { name: 'Create an account' }).click();
      await page.getByLabel('Your name').fill('Ana Harbour');
      await page.getByLabel('E-mail').fill('ana@harbour.test');
      await page.getByLabel('Password').fill('tide-tables-2026');
      await page.getByLabel('Workspace name').fill('Harbour watch');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Projects' }).waitFor();
      await page.getByText('No projects yet').waitFor();
      await page.getByText('Harbour watch').first().waitFor();
      await checkScreen(page, 'projects-empty');
    },
    JOURNEY_MS,
  );

  it(
    'creates a project from a URL: sitemaps found, patterns previewed, config by groups, unknown keys refused by name',
    async () => {
      await page.getByRole('link', { name: 'New project' }).click();
      await page.getByLabel('Site address').fill(web.url('harbour.test', '/'));
      await page.getByLabel('Name (optional)').fill('Harbour Trust');
      await page.getByRole('button', { name: 'Continue' }).click();

      await page.getByRole('button', { name: 'Find sitemaps' }).click();
      await page.getByText(/1 sitemap files listing 8 URLs/).waitFor();
      await page.getByLabel('exclude_paths').fill('/news/*');
      await page.getByRole('button', { name: 'Preview and dry run' }).click();
      await page.getByRole('cell', { name: '/news/*' }).waitFor();
      await checkScreen(page, 'new-project-sources');
      await page.getByRole('button', { name: 'Continue to settings' }).click();

      // Every group is there with its defaults.
      await page.getByRole('group', { name: 'scope', exact: true }).waitFor();
      for (const group of ['scope', 'fetch', 'content', 'output', 'advanced'])
        await page.getByRole('group', { name: group, exact: true }).waitFor();
      await expect(page.getByLabel('max_pages').inputValue()).resolves.toBe('1000');
      await page.getByText('Default: 1000.').first().waitFor();

      // A key the API does not know is refused by its name, and nothing is saved.
      await page.getByLabel('More settings (JSON)').fill('{"bogus_key": 1}');
      await page.getByRole('button', { name: 'Save and continue' }).click();
      await page.getByRole('alert').getByText('unknown key "bogus_key"').waitFor();
      await expect(
        page
          .getByRole('alert')
          .getByText(/Request id: req_/)
          .isVisible(),
      ).resolves.toBe(true);
      await checkScreen(page, 'new-project-refused');

      await page.getByLabel('More settings (JSON)').fill('');
      await page.getByLabel('fields').fill('{"price": ".mooring-price", "berths": ".berth-count"}');
      await page.getByLabel('store_html').selectOption('always');
      await page.getByLabel('Schedule').selectOption('weekly');
      await page.getByLabel('Retention').fill('30d');
      await page.getByRole('button', { name: 'Save and continue' }).click();
      await page.getByRole('heading', { name: 'Ready' }).waitFor();
      await page.getByText('runs weekly').waitFor();
    },
    JOURNEY_MS,
  );

  it(
    'runs now with live progress, then runs again across a change and reads the change record',
    async () => {
      await page.getByRole('button', { name: 'Run now' }).click();
      await page.waitForURL(/\/projects\/prj_[a-z0-9]+$/);
      projectUrl = new URL(page.url()).pathname;
      // The progress of the run, live, until it ends and is compared.
      await page.getByRole('progressbar', { name: 'Pages fetched' }).waitFor();
      await page.getByText('First run: nothing to compare against yet.').waitFor({ timeout: 90_000 });

      web.harbour.edition = 2;
      await page.getByRole('button', { name: 'Run now' }).click();
      await page.getByRole('progressbar', { name: 'Pages fetched' }).waitFor();
      await page.getByText(/^A verdict on the site/).waitFor({ timeout: 90_000 });
      const count = (label: string) =>
        page
          .locator('.count', { has: page.getByText(label, { exact: true }) })
          .locator('dd')
          .innerText();
      await expect(count('added')).resolves.toBe('2');
      await expect(count('removed')).resolves.toBe('1');
      await expect(count('modified')).resolves.toBe('2');
      await expect(count('selector breaks')).resolves.toBe('1');
      await expect(page.getByRole('cell', { name: 'exhausted' }).count()).resolves.toBe(2);
      await checkScreen(page, 'project-home');
    },
    JOURNEY_MS,
  );

  it(
    'reviews the entries one by one: moved pages, changed fields and a selector break',
    async () => {
      await page.getByRole('link', { name: /^Review \d+ entries$/ }).click();
      await page.getByRole('heading', { name: /^To review: 5 of 5$/ }).waitFor();
      const review = page.getByRole('region', { name: 'Review' });
      const seen: string[] = [];
      for (let i = 0; i < 5; i++) {
        const heading = await review.getByRole('heading', { level: 3 }).innerText();
        seen.push(heading);
        if (heading.includes('/moorings')) {
          await review.getByText('.berth-count').waitFor();
          await review.getByText('matches nothing now').waitFor();
          await checkScreen(page, 'review-selector-break');
        }
        if (heading.includes('/news/winter-regatta')) await review.getByText(/Moved to/).waitFor();
        if (heading.includes('/prices')) await review.getByText('Fields changed: price').waitFor();
        await review.getByRole('button', { name: 'Mark reviewed' }).click();
        await page.getByRole('heading', { name: `To review: ${4 - i} of 5` }).waitFor();
      }
      expect(seen.map((h) => h.replace(/^\w+\s+/, '')).sort()).toEqual([
        '/events/winter-regatta',
        '/moorings',
        '/news/new-pontoon',
        '/news/winter-regatta',
        '/prices',
      ]);
      await review.getByText('Every entry is reviewed.').waitFor();
      // The marks are stored: a reload shows them.
      await page.reload();
      await page.getByRole('heading', { name: 'To review: 0 of 5' }).waitFor();
    },
    JOURNEY_MS,
  );

  it(
    "reads a page's word diff side by side and its markup diff",
    async () => {
      await page.getByRole('link', { name: '/prices', exact: true }).click();
      await page.getByRole('heading', { name: 'Word diff' }).waitFor();
      const hunk = page.locator('.hunk').first();
      await expect(hunk.getByLabel('Before').locator('del').innerText()).resolves.toBe('$19');
      await expect(hunk.getByLabel('After').locator('ins').innerText()).resolves.toBe('$24');
      await page.getByRole('cell', { name: 'main#content > p:nth-of-type(1) > span.mooring-price' }).waitFor();
      await expect(
        page.getByRole('cell', { name: 'Showers are now free for every boat staying two nights or more.' }).count(),
      ).resolves.toBeGreaterThan(0);
      await checkScreen(page, 'page-diff');

      // The same screen at a phone's width: the columns stack, nothing overflows.
      await page.setViewportSize({ width: 390, height: 844 });
      await checkScreen(page, 'page-diff-390');
      await page.setViewportSize({ width: 1280, height: 900 });
      expect(projectUrl).toMatch(/^\/projects\/prj_/);
    },
    JOURNEY_MS,
  );

  it('made no request outside the app and the API routes, and threw no error', () => {
    expect(app.requests.length).toBeGreaterThan(20);
    expect(app.strayRequests()).toEqual([]);
    expect(app.pageErrors).toEqual([]);
  });
});
