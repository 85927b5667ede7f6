// Long (~450 lines) because one render is one sequence that shares its state throughout: the
// navigation, the response capture, the settle wait, the screenshot and the exit's byte count all
// read the same page and context; split, each part would take the whole state as arguments.
import type { CDPSession, HTTPRequest, HTTPResponse, PuppeteerLifeCycleEvent, ScreenshotOptions } from 'puppeteer-core';
import type { browserPoolV1 } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import type { Logger } from '@tidemark/telemetry';
import type { ExitOutcome, ExitRegistry } from '../exits/exit-registry.js';
import type { BrowserPool, Tab } from '../pool/browser-pool.js';
import { GUARD_HEADER, type ProxySession, type Refusal } from '../proxy/forward-proxy.js';
import { detectWidget, EVIDENCE_SCRIPT, type PageEvidence } from './captcha.js';
import { isSettled, SETTLE_MAX_MS, SETTLE_PROBE, SETTLE_QUIET_MS, type SettleProbe } from './dom-settle.js';
import { SETTLE_FRAMES } from './hidden-render.js';
import { readPageHtml } from './page-html.js';
import { RenderError } from './render-errors.js';

const WAIT_UNTIL = new Set<PuppeteerLifeCycleEvent>(['load', 'domcontentloaded', 'networkidle0', 'networkidle2']);
export const DEFAULT_VIEWPORT = { width: 1280, height: 800 };
const MAX_TIMEOUT_MS = 120_000;
/** How often a settling page is asked whether it has settled. */
const SETTLE_POLL_MS = 25;
/** Requests that stay open by design (streams, beacons, prefetches) do not hold a page's settling. */
const OPEN_ENDED = new Set(['eventsource', 'websocket', 'ping', 'prefetch', 'media']);

/** The render's network as settling reads it. */
interface Network {
  lastNavigation(): string;
  inFlight(): number;
  quietMs(): number;
}
/** Double-frames a shown page gets, at most, to finish drawing what it waited on frames for. */
const REVEAL_MAX_FRAMES = 5;
/**
 * The tallest full-page screenshot, in CSS pixels: Chromium's largest texture side. A taller
 * page is shot down to here (the answer's page_height says how tall it was).
 */
export const MAX_SHOT_HEIGHT = 16_384;
/** The document's full size in CSS pixels, as the full-page screenshot covers it. */
const PAGE_SIZE = `(() => {
  const d = document.documentElement, b = document.body;
  return {
    width: Math.max(d ? d.scrollWidth : 0, b ? b.scrollWidth : 0),
    height: Math.max(d ? d.scrollHeight : 0, b ? b.scrollHeight : 0),
  };
})()`;
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
  /** Largest serialized DOM (UTF-8 bytes) a render answers; a request may ask for less. */
  maxHtmlBytes: number;
  /** Largest screenshot a render answers; a larger one is omitted, and the answer says so. */
  maxScreenshotBytes: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** `work`'s answer, or undefined once `ms` pass first; the timer ends with the race (none is left running). */
const within = <T>(work: Promise<T>, ms: number): Promise<T | undefined> => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined))),
  ]).finally(() => clearTimeout(timer));
};
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
    const inFlight = new Set<HTTPRequest>();
    let lastActivity = Date.now();
    const onRequest = (r: HTTPRequest) => {
      lastActivity = Date.now();
      if (r.isNavigationRequest() && r.frame() === page.mainFrame()) lastNavigation = r.url();
      if (!OPEN_ENDED.has(r.resourceType())) inFlight.add(r);
    };
    const onDone = (r: HTTPRequest) => {
      inFlight.delete(r);
      lastActivity = Date.now();
    };
    page.on('request', onRequest);
    page.on('requestfinished', onDone);
    page.on('requestfailed', onDone);
    try {
      return await this.navigateAndCaptureIn(tab, req, url, waitUntil, timeoutMs, deadline, crashed, {
        lastNavigation: () => lastNavigation,
        inFlight: () => inFlight.size,
        quietMs: () => (inFlight.size > 0 ? 0 : Date.now() - lastActivity),
      });
    } finally {
      page.off('request', onRequest);
      page.off('requestfinished', onDone);
      page.off('requestfailed', onDone);
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
    network: Network,
  ): Promise<browserPoolV1.RenderResponse> {
    const { page, session } = tab;
    const started = Date.now();
    let response: HTTPResponse | null;
    try {
      // `load` is reached by settling (dom-settle.ts): from DOMContentLoaded until the DOM and the
      // network are still, which a slow image need not hold up and a late render does.
      response = await page.goto(url, {
        waitUntil: waitUntil === 'load' ? 'domcontentloaded' : waitUntil,
        timeout: timeoutMs,
      });
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
    await this.settle(tab, deadline, crashed, network);
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

    const maxBytes = req.maxHtmlBytes > 0 ? Math.min(req.maxHtmlBytes, this.opts.maxHtmlBytes) : this.opts.maxHtmlBytes;
    const html = await readPageHtml(page, maxBytes, url);
    const evidence = (await page.evaluate(EVIDENCE_SCRIPT)) as PageEvidence;
    const widget = detectWidget(
      evidence,
      page.frames().map((f) => f.url()),
    );
    const shot = req.screenshot ? await this.screenshot(page, req) : undefined;
    const chain = response?.request().redirectChain() ?? [];
    return {
      finalUrl: page.url(),
      status: response?.status() ?? 0,
      headers: response?.headers() ?? {},
      html,
      screenshot: shot?.image ?? Buffer.alloc(0),
      screenshotFormat: shot?.image.length ? shot.format : '',
      screenshotOmitted: shot?.omitted ?? '',
      pageHeight: shot?.pageHeight ?? 0,
      widget: widget ?? '',
      solved: widget ? 'none' : '',
      exitBytes: 0,
      exitId: '',
      loadMs,
      redirects: chain.length ? [...chain.map((r) => r.url()), response!.url()] : [],
    };
  }

  /**
   * Waits until the page has settled (dom-settle.ts): no DOM mutation and no request for a
   * moment, and no short timer of the page still to run; or until its settling time is spent
   * (SETTLE_MAX_MS within the time budget), when it is captured as it stands. A hidden page that
   * asks for animation frames or observes intersections or sizes is shown on the way: it gets
   * frames until its DOM stops changing, and settling goes on (hidden-render.ts).
   */
  private async settle(tab: Tab, deadline: number, crashed: () => RenderError | undefined, network: Network) {
    const until = Math.min(deadline, Date.now() + SETTLE_MAX_MS);
    const left = () => Math.max(1, until - Date.now());
    for (;;) {
      if (crashed()) throw crashed();
      // A page busy in a long script answers late; a page navigating answers not at all.
      const probe = await within(
        tab.page.evaluate(SETTLE_PROBE).then(
          (p) => p as SettleProbe | null,
          () => undefined,
        ),
        left(),
      );
      if (probe && tab.hidden && (probe.frames > 0 || probe.observed)) {
        await this.pool.setVisible(tab, true);
        await within(
          tab.page.evaluate(SETTLE_FRAMES(REVEAL_MAX_FRAMES)).catch(() => undefined),
          Math.min(2_000, left()),
        );
        continue;
      }
      // A document the probe is not in (an image, a viewer) is judged by the network alone.
      const settled =
        probe === null
          ? network.inFlight() === 0 && network.quietMs() >= SETTLE_QUIET_MS
          : probe !== undefined && isSettled(probe, network.quietMs(), network.inFlight());
      if (settled || Date.now() >= until) return;
      await sleep(SETTLE_POLL_MS);
    }
  }

  /**
   * The screenshot asked for: the viewport, or the whole page as one image (clipped at
   * MAX_SHOT_HEIGHT CSS pixels), as JPEG at the quality asked or PNG. One larger than the pool's
   * cap is omitted, with the reason.
   */
  private async screenshot(
    page: Tab['page'],
    req: browserPoolV1.RenderRequest,
  ): Promise<{ image: Buffer; format: 'jpeg' | 'png'; omitted?: string; pageHeight?: number }> {
    const format = req.screenshotFormat === 'png' ? 'png' : 'jpeg';
    const options: ScreenshotOptions = {
      type: format,
      ...(format === 'jpeg' ? { quality: req.screenshotQuality > 0 ? Math.min(req.screenshotQuality, 100) : 80 } : {}),
    };
    let pageHeight: number | undefined;
    if (req.screenshotFullPage) {
      const size = (await page.evaluate(PAGE_SIZE)) as { width: number; height: number };
      pageHeight = size.height;
      const width = page.viewport()?.width ?? DEFAULT_VIEWPORT.width;
      options.captureBeyondViewport = true;
      options.clip = { x: 0, y: 0, width, height: Math.max(1, Math.min(size.height, MAX_SHOT_HEIGHT)) };
    }
    const image = Buffer.from(await page.screenshot(options));
    if (image.length > this.opts.maxScreenshotBytes)
      return {
        image: Buffer.alloc(0),
        format,
        omitted: `the screenshot is ${image.length} bytes, more than the ${this.opts.maxScreenshotBytes} kept`,
        ...(pageHeight !== undefined ? { pageHeight } : {}),
      };
    return { image, format, ...(pageHeight !== undefined ? { pageHeight } : {}) };
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
