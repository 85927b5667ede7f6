// Driving the web application in Debian's Chromium (playwright-core; no browser download), with
// the checks every journey makes: each request the page sends goes to the app's own files or to
// a /v1 route the gateway serves, axe finds no serious violation, and screenshots are kept.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from '@jest/globals';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestFleet } from './fleet.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const webDir = join(root, 'services/web');
/** Where screenshots of the journeys are kept (CI keeps the folder as the run's artifacts). */
export const ARTIFACTS = join(root, 'test-results/web');

const newest = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((max, e) => {
    const p = join(dir, e.name);
    return Math.max(max, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }, 0);

/**
 * Builds the app when dist/ is missing or older than its sources (`pnpm test` builds it first;
 * this covers a single file run by hand). Test files run in parallel: a lock directory lets one
 * build while the others wait.
 */
export const ensureWebBuilt = async (): Promise<void> => {
  const built = () => {
    try {
      return (
        statSync(join(webDir, 'dist/index.html')).mtimeMs >=
        Math.max(newest(join(webDir, 'app')), statSync(join(webDir, 'vite.config.ts')).mtimeMs)
      );
    } catch {
      return false;
    }
  };
  const lock = join(webDir, '.build-lock');
  for (let i = 0; i < 600 && !built(); i++) {
    try {
      mkdirSync(lock);
    } catch {
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    try {
      if (!built()) execFileSync('pnpm', ['--filter', '@tidemark/web', 'build'], { cwd: root, stdio: 'ignore' });
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  if (!built()) throw new Error('the web app could not be built (pnpm --filter @tidemark/web build)');
};

const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });

export interface AppSession {
  context: BrowserContext;
  page: Page;
  /** Every request the page sent: method and URL. */
  requests: { method: string; url: string; type: string }[];
  /** Uncaught errors of the app's scripts (should stay empty). */
  pageErrors: string[];
  /** Requests outside the app's files and the gateway's routes (should stay empty). */
  strayRequests(): string[];
  close(): Promise<void>;
}

/** `/projects/:id/pages` → a regular expression for `/v1/projects/<anything>/pages`. */
const routePattern = (path: string) =>
  new RegExp(`^/v1${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+')}$`);

/** A browser context on the app: its own cookie jar (one member), 1280 px wide unless told. */
export const openApp = async (
  browser: Browser,
  t: TestFleet,
  opts: { width?: number; height?: number } = {},
): Promise<AppSession> => {
  const context = await browser.newContext({
    baseURL: t.webUrl,
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 },
    acceptDownloads: true,
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(t.webUrl).origin });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const requests: AppSession['requests'] = [];
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  context.on('request', (r) => requests.push({ method: r.method(), url: r.url(), type: r.resourceType() }));
  const routes = t.fleet.gateway.routes.map((r) => ({ method: r.method.toUpperCase(), pattern: routePattern(r.path) }));
  const origin = new URL(t.webUrl).origin;
  return {
    context,
    page,
    requests,
    pageErrors,
    strayRequests: () =>
      requests
        .filter((r) => {
          if (r.url.startsWith('data:') || r.url.startsWith('blob:')) return false;
          const url = new URL(r.url);
          if (url.origin !== origin) return true;
          if (url.pathname.startsWith('/v1/'))
            return !routes.some((route) => route.method === r.method && route.pattern.test(url.pathname));
          // The app's own files, and navigations to its screens (index.html answers them).
          return !(r.type === 'document' || url.pathname.startsWith('/assets/'));
        })
        .map((r) => `${r.method} ${r.url}`),
    close: () => context.close(),
  };
};

// Evaluated through the DevTools protocol, which the app's Content-Security-Policy does not
// govern (a <script> tag would be refused, as any injected script should be).
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it stands (ids and the nodes at fault). */
export const axeViolations = async (page: Page): Promise<string[]> => {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: any[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n: { target: string[] }) => n.target.join(' ')).join(', ')}`);
  });
  return violations;
};

/** A screenshot of the whole page under test-results/web/<name>.png. */
export const snap = async (page: Page, name: string): Promise<string> => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
};

/** The screen checks of every journey step: accessible, nothing wider than the window. */
export const checkScreen = async (page: Page, name: string): Promise<void> => {
  await snap(page, name);
  expect(await axeViolations(page)).toEqual([]);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
};
