import type { CDPSession, HTTPRequest, HTTPResponse, PuppeteerLifeCycleEvent } from 'puppeteer-core';
import type { browserPoolV1 } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import type { Logger } from '@tidemark/telemetry';
import type { ExitOutcome, ExitRegistry } from '../exits/exit-registry.js';
import type { BrowserPool, Tab } from '../pool/browser-pool.js';
import { GUARD_HEADER, type ProxySession, type Refusal } from '../proxy/forward-proxy.js';
import { detectWidget, EVIDENCE_SCRIPT, type PageEvidence } from './captcha.js';
import { FRAME_NEEDS, SETTLE_FRAMES, type FrameNeeds } from './hidden-render.js';
import { RenderError } from './render-errors.js';

const WAIT_UNTIL = new Set<PuppeteerLifeCycleEvent>(['load', 'domcontentloaded', 'networkidle0', 'networkidle2']);
export const DEFAULT_VIEWPORT = { width: 1280, height: 800 };
const MAX_TIMEOUT_MS = 120_000;
/**
 * `load` without a screenshot settles early: after DOMContentLoaded (scripts have built the
 * page), the load event or this long without a request in flight, whichever comes first.
 */
const SETTLE_QUIET_MS = 150;
/** Double-frames a shown page gets, at most, to finish drawing what it waited on frames for. */
const REVEAL_MAX_FRAMES = 5;
/** Time allowed after the wait condition for serializing the DOM and the screenshot. */
const CAPTURE_GRACE_MS = 15_000;
/** Images, fonts and media by extension: blocked in Chromium itself, no per-request round trip. */
const MEDIA_EXTENSIONS = [
  'png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'svg', 'ico', 'bmp', 'tif', 'tiff',
  'woff', 'woff2', 'ttf', 'otf', 'eot',
  'mp4', 'webm', 'ogg', 'ogv', 'mp3', 'wav', 'm4a', 'm4v', 'mov', 'avi', 'flac', 'aac',
]; // prettier-ignore

export interface RenderServiceOptions {
  defaultTimeoutMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hostOf = (url: string) => {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return '';
  }
};

/** What a proxy refusal means for the render whose main document it hit. */
const refusalError = (refusal: Refusal, url: string): RenderError => {
  switch (refusal.kind) {
    case 'blocked':
      return new RenderError('blocked_address', refusal.error.message, {
        host: refusal.error.host,
        address: refusal.error.address,
        url,
      });
    case 'not_found':
      return new RenderError('network', refusal.error.message, { url, net: 'host_not_found' });
    case 'exit':
      return new RenderError('exit_failed', refusal.error.message, { url });
    default:
      return new RenderError('network', `${url}: ${refusal.error.message}`, { url });
  }
};

/**
 * One render: a fresh incognito context from the pool, navigation bounded by the timeout, the
 * main document's status, headers and redirects, the DOM after scripts ran, a JPEG screenshot,
 * the captcha widget on the page, and the exit's bytes when it went out through one.
 */
export class RenderService {
  constructor(
    private readonly pool: BrowserPool,
    private readonly exits: ExitRegistry,
    private readonly opts: RenderServiceOptions,
    private readonly logger: Logger,
  ) {}

  async render(req: browserPoolV1.RenderRequest): Promise<browserPoolV1.RenderResponse> {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      throw new ValidationError('url must be an absolute http(s) URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError('url must be http or https');
    const waitUntil = (req.waitUntil || 'load') as PuppeteerLifeCycleEvent;
    if (!WAIT_UNTIL.has(waitUntil))
      throw new ValidationError(`wait_until must be one of ${[...WAIT_UNTIL].join(', ')}`);
    if (req.useExit && this.exits.size === 0)
      throw new ValidationError('use_exit: no residential exits are configured (BROWSER_EXITS)');
    const timeoutMs = Math.min(req.timeoutMs > 0 ? req.timeoutMs : this.opts.defaultTimeoutMs, MAX_TIMEOUT_MS);

    return this.pool.withTab(timeoutMs, (tab) => this.inTab(tab, req, url.toString(), waitUntil, timeoutMs));
  }

  private async inTab(
    tab: Tab,
    req: browserPoolV1.RenderRequest,
    url: string,
    waitUntil: PuppeteerLifeCycleEvent,
    timeoutMs: number,
  ): Promise<browserPoolV1.RenderResponse> {
    const { page, session } = tab;
    const host = hostOf(url);
    const exit = req.useExit ? this.exits.choose(host) : undefined;
    session.begin(exit);

    // A crashed tab or a dead browser ends the render at once, whatever it was waiting for.
    let crashed: RenderError | undefined;
    let finished = false;
    let onError: ((err: Error) => void) | undefined;
    const crash = new Promise<never>((_, reject) => {
      onError = (err: Error) => {
        crashed = new RenderError('crashed', `the tab crashed rendering ${url} (${err.message})`, { url });
        reject(crashed);
      };
      page.once('error', onError);
      void tab.disconnected.then(() => {
        if (finished) return;
        crashed ??= new RenderError('crashed', `the browser went away rendering ${url}`, { url });
        reject(crashed);
      });
    });
    crash.catch(() => undefined);
    const deadline = Date.now() + timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const overall = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new RenderError('timeout', `${url} did not finish within ${timeoutMs} ms`, { url, timeoutMs })),
        timeoutMs + CAPTURE_GRACE_MS,
      );
    });
    overall.catch(() => undefined);

    let outcome: ExitOutcome = 'failed';
    try {
      const result = await Promise.race([
        this.navigateAndCapture(tab, req, url, waitUntil, timeoutMs, deadline, () => crashed),
        crash,
        overall,
      ]);
      outcome = result.status >= 400 && [401, 403, 407, 429, 503].includes(result.status) ? 'blocked' : 'read';
      if (result.widget) outcome = 'blocked';
      if (exit) {
        result.exitId = exit.id;
        result.exitBytes = session.exitBytes();
      }
      return result;
    } catch (err) {
      if (crashed) {
        this.logger.warn({ url, browser: tab.browserId }, 'tab crashed');
        throw crashed;
      }
      if (err instanceof RenderError && err.reason === 'exit_failed') outcome = 'unreachable';
      // A page still loading, or in an unknown state, is not worth wiping: its lane is replaced.
      if (!(err instanceof RenderError) || err.reason !== 'network') tab.spoiled = true;
      throw err;
    } finally {
      finished = true;
      if (onError) page.off('error', onError);
      clearTimeout(timer);
      if (exit) this.exits.record(exit.id, host, outcome, session.exitBytes());
    }
  }

  private async navigateAndCapture(
    tab: Tab,
    req: browserPoolV1.RenderRequest,
    url: string,
    waitUntil: PuppeteerLifeCycleEvent,
    timeoutMs: number,
    deadline: number,
    crashed: () => RenderError | undefined,
  ): Promise<browserPoolV1.RenderResponse> {
    const { page } = tab;
    await this.prepare(tab, req, url);
    // A screenshot is of a page that rendered visibly, as a person would have seen it load.
    if (req.screenshot) await this.pool.setVisible(tab, true);

    // The main frame's last navigation request: where a failed navigation was going. Requests
    // in flight and the last network activity: when a settling page has gone quiet.
    let lastNavigation = url;
    let inFlight = 0;
    let lastActivity = Date.now();
    let loaded = false;
    const onRequest = (r: HTTPRequest) => {
      inFlight += 1;
      lastActivity = Date.now();
      if (r.isNavigationRequest() && r.frame() === page.mainFrame()) lastNavigation = r.url();
    };
    const onDone = () => {
      inFlight -= 1;
      lastActivity = Date.now();
    };
    const onLoad = () => (loaded = true);
    page.on('request', onRequest);
    page.on('requestfinished', onDone);
    page.on('requestfailed', onDone);
    page.on('load', onLoad);
    try {
      return await this.navigateAndCaptureIn(tab, req, url, waitUntil, timeoutMs, deadline, crashed, {
        lastNavigation: () => lastNavigation,
        quiet: () => loaded || (inFlight <= 0 && Date.now() - lastActivity >= SETTLE_QUIET_MS),
        quietSince: (t: number) => inFlight <= 0 && (lastActivity < t || Date.now() - lastActivity >= SETTLE_QUIET_MS),
      });
    } finally {
      page.off('request', onRequest);
      page.off('requestfinished', onDone);
      page.off('requestfailed', onDone);
      page.off('load', onLoad);
    }
  }

  private async navigateAndCaptureIn(
    tab: Tab,
    req: browserPoolV1.RenderRequest,
    url: string,
    waitUntil: PuppeteerLifeCycleEvent,
    timeoutMs: number,
    deadline: number,
    crashed: () => RenderError | undefined,
    network: { lastNavigation(): string; quiet(): boolean; quietSince(t: number): boolean },
  ): Promise<browserPoolV1.RenderResponse> {
    const { page, session } = tab;
    const settle = waitUntil === 'load' && !req.screenshot;
    const started = Date.now();
    let response: HTTPResponse | null;
    try {
      response = await page.goto(url, { waitUntil: settle ? 'domcontentloaded' : waitUntil, timeout: timeoutMs });
      if (settle) {
        while (!network.quiet()) {
          if (crashed()) throw crashed();
          if (Date.now() >= deadline) {
            const err = new Error('settle');
            err.name = 'TimeoutError';
            throw err;
          }
          await sleep(25);
        }
      }
    } catch (err) {
      throw this.navigationError(err, session, network.lastNavigation(), timeoutMs, crashed);
    }
    const guardHeader = response?.headers()[GUARD_HEADER];
    if (response && guardHeader) {
      const refusal = session.refusals.get(hostOf(response.url()));
      throw refusal
        ? refusalError(refusal, response.url())
        : new RenderError('network', `${response.url()}: refused by the proxy (${guardHeader})`, {
            url: response.url(),
          });
    }
    if (tab.hidden) await this.showIfItWaitsOnFrames(tab, deadline, crashed, network);
    if (req.waitForSelector) {
      try {
        await page.waitForSelector(req.waitForSelector, { timeout: Math.max(1, deadline - Date.now()) });
      } catch (err) {
        if (crashed()) throw crashed();
        if (err instanceof Error && err.name === 'TimeoutError')
          throw new RenderError('timeout', `selector "${req.waitForSelector}" did not appear within ${timeoutMs} ms`, {
            url,
            timeoutMs,
            selector: req.waitForSelector,
          });
        throw new ValidationError(`wait_for_selector: ${(err as Error).message}`);
      }
    }
    const loadMs = Date.now() - started;
    if (req.waitForMs > 0) await sleep(Math.min(req.waitForMs, Math.max(0, deadline - Date.now())));

    const html = await page.content();
    const evidence = (await page.evaluate(EVIDENCE_SCRIPT)) as PageEvidence;
    const widget = detectWidget(
      evidence,
      page.frames().map((f) => f.url()),
    );
    let screenshot = Buffer.alloc(0);
    if (req.screenshot) {
      const shot = await page.screenshot({ type: 'jpeg', quality: 80, fullPage: req.screenshotFullPage });
      screenshot = Buffer.from(shot);
    }
    const chain = response?.request().redirectChain() ?? [];
    return {
      finalUrl: page.url(),
      status: response?.status() ?? 0,
      headers: response?.headers() ?? {},
      html,
      screenshotJpeg: screenshot,
      widget: widget ?? '',
      solved: widget ? 'none' : '',
      exitBytes: 0,
      exitId: '',
      loadMs,
      redirects: chain.length ? [...chain.map((r) => r.url()), response!.url()] : [],
    };
  }

  /**
   * A page rendered hidden that asked for animation frames or observes intersections or sizes
   * is shown: it gets frames until its DOM settles, then the requests those started are waited
   * for like the load (see hidden-render.ts). A page that asked for none is captured as it is.
   */
  private async showIfItWaitsOnFrames(
    tab: Tab,
    deadline: number,
    crashed: () => RenderError | undefined,
    network: { quietSince(t: number): boolean },
  ): Promise<void> {
    const needs = (await tab.page.evaluate(FRAME_NEEDS)) as FrameNeeds | null;
    if (needs && needs.frames === 0 && !needs.observed) return;
    const shownAt = Date.now();
    await this.pool.setVisible(tab, true);
    const left = () => Math.max(1, deadline - Date.now());
    await Promise.race([tab.page.evaluate(SETTLE_FRAMES(REVEAL_MAX_FRAMES)), sleep(Math.min(2_000, left()))]);
    while (!network.quietSince(shownAt) && Date.now() < deadline) {
      if (crashed()) throw crashed();
      await sleep(25);
    }
  }

  private async prepare(tab: Tab, req: browserPoolV1.RenderRequest, url: string): Promise<void> {
    const { page } = tab;
    const width = req.viewportWidth > 0 ? Math.min(req.viewportWidth, 4096) : DEFAULT_VIEWPORT.width;
    const height = req.viewportHeight > 0 ? Math.min(req.viewportHeight, 4096) : DEFAULT_VIEWPORT.height;
    const current = page.viewport();
    const steps: Promise<unknown>[] =
      current?.width === width && current.height === height ? [] : [page.setViewport({ width, height })];
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (name.toLowerCase() === 'user-agent') {
        tab.userAgentChanged = true;
        steps.push(page.setUserAgent(value));
      } else headers[name] = value;
    }
    if (Object.keys(headers).length) {
      tab.extraHeaders = true;
      steps.push(page.setExtraHTTPHeaders(headers));
    }
    if (req.cookies.length)
      steps.push(
        page
          .browserContext()
          .setCookie(
            ...req.cookies.map((c) =>
              c.domain
                ? { name: c.name, value: c.value, domain: c.domain, path: c.path || '/' }
                : { name: c.name, value: c.value, domain: new URL(url).hostname, path: c.path || '/' },
            ),
          ),
      );
    // Blocking stays set on a reused page until a render wants media again.
    const block = req.blockMedia && !req.screenshot;
    if (block !== tab.mediaBlocked) {
      steps.push(
        (async () => {
          // The page's own CDP session already has Network enabled; a new one would cost a round
          // trip and a Network.enable per render.
          const own = (page as unknown as { _client?: () => CDPSession })._client?.();
          const cdp = own ?? (await page.createCDPSession());
          if (!own) await cdp.send('Network.enable');
          await cdp.send('Network.setBlockedURLs', {
            urlPatterns: block ? MEDIA_EXTENSIONS.map((ext) => ({ urlPattern: `*://*:*/*.${ext}`, block: true })) : [],
          });
          tab.mediaBlocked = block;
        })(),
      );
    }
    await Promise.all(steps);
  }

  private navigationError(
    err: unknown,
    session: ProxySession,
    lastNavigation: string,
    timeoutMs: number,
    crashed: () => RenderError | undefined,
  ): Error {
    const c = crashed();
    if (c) return c;
    const message = err instanceof Error ? err.message : String(err);
    const refusal = session.refusals.get(hostOf(lastNavigation));
    if (refusal && /net::ERR_|Navigation/i.test(message)) return refusalError(refusal, lastNavigation);
    if (err instanceof Error && err.name === 'TimeoutError')
      return new RenderError('timeout', `${lastNavigation} did not reach the wait condition within ${timeoutMs} ms`, {
        url: lastNavigation,
        timeoutMs,
      });
    const net = /net::(ERR_[A-Z_]+)/.exec(message)?.[1];
    if (net) return new RenderError('network', `${lastNavigation}: ${net}`, { url: lastNavigation, net });
    return new RenderError(
      'crashed',
      `navigation to ${lastNavigation} failed: ${message}`,
      { url: lastNavigation },
      err,
    );
  }
}
