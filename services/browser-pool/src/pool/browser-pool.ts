// Long (~560 lines) because the pool's invariants (browsers × lanes bounded, a crashed browser
// relaunched, a recycled one drained before it closes, the FIFO of waiters) live in one lock-free
// state machine; they are only safe to reason about in one place.
import type { Browser, BrowserContext, CDPSession, Page } from 'puppeteer-core';
import type { Logger } from '@tidemark/telemetry';
import type { ForwardProxy, ProxySession } from '../proxy/forward-proxy.js';
import { SETTLE_WATCH_SCRIPT } from '../render/dom-settle.js';
import { FRAME_WATCH_SCRIPT, HIDDEN_RENDER_ARGS } from '../render/hidden-render.js';
import { RenderError } from '../render/render-errors.js';
import { launchChromium, type LaunchedBrowser, type LaunchSpec } from './launch.js';

/**
 * One lane of a browser: an incognito context with one page, wired to its own proxy listener.
 * A lane serves one render at a time and is reused for the next one after a reset (see
 * `BrowserPool.reset`), until it has served `contextReuse` renders or a render spoiled it.
 */
export interface Tab {
  browserId: number;
  context: BrowserContext;
  page: Page;
  session: ProxySession;
  /** Settles when the browser under the tab disconnects (crash, kill, recycle). */
  disconnected: Promise<void>;
  /** Set when the tab's renderer crashed (an idle lane may die before it is used). */
  crashed: boolean;
  browser: Browser;
  /** Renders this lane has served. */
  uses: number;
  /** Set by a render after which the lane must not be reused (timeout, unknown failure). */
  spoiled: boolean;
  /** The render overrode the user agent / set extra headers / blocked media: reset undoes it. */
  userAgentChanged: boolean;
  extraHeaders: boolean;
  mediaBlocked: boolean;
  /** The lane's window (one per context), and whether it is minimized: a hidden page paints nothing. */
  windowId: number;
  hidden: boolean;
}

export interface BrowserPoolOptions {
  executablePath: string;
  headless: boolean;
  browsers: number;
  tabsPerBrowser: number;
  /** Renders after which a browser is drained and relaunched. */
  recycleAfter: number;
  /** Renders a lane (context + page + proxy listener) serves before it is replaced; 1 = a fresh context per render. */
  contextReuse?: number;
  /**
   * Lanes per browser beyond the renders in flight (default: half of tabsPerBrowser): opened
   * ahead of demand, and what lets a render start in a clean lane while the last one is still
   * being wiped. Each lane is a renderer process (tens of MB).
   */
  sparesPerBrowser?: number;
  /** Extra Chromium flags. */
  args?: string[];
  /** Stealth evasions on every page (default true). */
  stealth?: boolean;
  proxy: ForwardProxy;
  logger: Logger;
  /** Replaced in tests. */
  launch?: (spec: LaunchSpec) => Promise<LaunchedBrowser>;
}

interface Slot {
  id: number;
  launched: LaunchedBrowser | undefined;
  launching: Promise<void> | undefined;
  disconnected: Promise<void>;
  renders: number;
  /** Renders in flight: what bounds the slot. */
  inFlight: number;
  /** Lanes being wiped after a render, off the next render's path. */
  resetting: number;
  /** Renders waiting for a lane to be wiped or opened (woken by any lane that becomes ready). */
  laneWaiters: Array<() => void>;
  draining: boolean;
  /** Lanes ready for a render. */
  idle: Tab[];
  /** Lanes being opened ahead of demand. */
  preparing: number;
  launchFailures: number;
}

interface Waiter {
  resolve(slot: Slot): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** How long a lane's reset may take before the lane is thrown away instead. */
const RESET_TIMEOUT_MS = 5_000;

/**
 * Run in every frame before a lane leaves a page: sessionStorage and window.name belong to the
 * tab, not to the origin's storage, so Storage.clearDataForOrigin would not reach them.
 */
const CLEAR_TAB_STATE = `(() => { try { sessionStorage.clear(); } catch {} try { window.name = ''; } catch {} })()`;

const cdpOf = (page: Page): CDPSession =>
  // The page's own session: Network and Page are enabled on it already.
  (page as unknown as { _client(): CDPSession })._client();

const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });

/**
 * Warm Chromium processes, each serving renders in a few long-lived incognito contexts (lanes)
 * that are wiped between renders. Concurrency is bounded by browsers × tabs; the rest wait in a
 * FIFO queue. A browser that crashes or disconnects is relaunched; one that has served
 * `recycleAfter` renders is drained and relaunched to bound its memory.
 */
export class BrowserPool {
  private readonly slots: Slot[];
  private readonly queue: Waiter[] = [];
  private stopping = false;
  private readonly launch: (spec: LaunchSpec) => Promise<LaunchedBrowser>;
  private readonly spares: number;
  private readonly contextReuse: number;
  /** The proxy's catch-all port Chromium is launched with (known once the proxy listens). */
  private proxyPort = 0;

  constructor(private readonly opts: BrowserPoolOptions) {
    this.launch = opts.launch ?? launchChromium;
    this.spares = Math.min(opts.sparesPerBrowser ?? Math.ceil(opts.tabsPerBrowser / 2), opts.tabsPerBrowser);
    this.contextReuse = Math.max(1, opts.contextReuse ?? 50);
    this.slots = Array.from({ length: opts.browsers }, (_, id) => ({
      id,
      launched: undefined,
      launching: undefined,
      disconnected: Promise.resolve(),
      renders: 0,
      inFlight: 0,
      resetting: 0,
      laneWaiters: [],
      draining: false,
      idle: [],
      preparing: 0,
      launchFailures: 0,
    }));
  }

  get tabsPerBrowser(): number {
    return this.opts.tabsPerBrowser;
  }

  get capacity(): number {
    return this.opts.browsers * this.opts.tabsPerBrowser;
  }

  async start(proxyPort: number): Promise<void> {
    this.proxyPort = proxyPort;
    await Promise.all(this.slots.map((s) => this.relaunch(s)));
    const failed = this.slots.filter((s) => !s.launched);
    if (failed.length === this.slots.length) throw new Error('no browser could be launched');
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const w of this.queue.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new RenderError('busy', 'the pool is shutting down'));
    }
    await Promise.all(this.slots.map((s) => s.launching?.catch(() => undefined)));
    await Promise.all(this.slots.map((s) => this.closeBrowser(s)));
  }

  /** The live browsers (tests kill them to check the pool recovers). */
  browsers(): Browser[] {
    return this.slots.flatMap((s) => (s.launched ? [s.launched.browser] : []));
  }

  stats() {
    return {
      queued: this.queue.length,
      slots: this.slots.map((s) => ({
        id: s.id,
        up: !!s.launched,
        inFlight: s.inFlight,
        renders: s.renders,
        idleLanes: s.idle.length,
      })),
    };
  }

  /**
   * Runs `fn` in a lane. Waits for room up to `queueTimeoutMs` (then `busy`). Afterwards the
   * slot is free at once and the lane is reset in the background, then kept (idle) or closed with
   * its proxy listener when it cannot be reused; a lane is idle only when wiped, so no render
   * meets a half-wiped one.
   */
  async withTab<T>(queueTimeoutMs: number, fn: (tab: Tab) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const slot = await this.acquire(queueTimeoutMs);
      let tab: Tab | undefined;
      try {
        tab = await this.takeTab(slot);
        return await fn(tab);
      } catch (err) {
        if (tab) tab.spoiled = true;
        // A browser that died under the render (killed, crashed as a whole) is relaunched; the
        // render is tried again on a live one (once per browser: when all were killed at once the
        // next may be found dead too). A tab crash with its browser alive is not retried.
        const browserGone = !tab || !slot.launched || slot.launched.browser !== tab.browser || !tab.browser.connected;
        if (attempt < this.opts.browsers && browserGone && !this.stopping) {
          this.opts.logger.warn({ browser: slot.id }, 'browser went away under a render; retrying once');
          continue;
        }
        throw err;
      } finally {
        if (tab) {
          const done = tab;
          slot.resetting += 1;
          void this.giveBack(slot, done).finally(() => {
            slot.resetting -= 1;
            this.laneReady(slot);
            this.topUp(slot);
          });
        }
        this.release(slot);
        this.topUp(slot);
      }
    }
  }

  private acquire(timeoutMs: number): Promise<Slot> {
    if (this.stopping) return Promise.reject(new RenderError('busy', 'the pool is shutting down'));
    const slot = this.roomy();
    if (slot && this.queue.length === 0) return Promise.resolve(this.occupy(slot));
    return new Promise<Slot>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          reject(new RenderError('busy', `no tab free within ${timeoutMs} ms`, { queued: this.queue.length }));
        }, timeoutMs),
      };
      this.queue.push(waiter);
    });
  }

  /** The slot with the fewest renders in flight that may take one more (ties: a ready lane). */
  private roomy(): Slot | undefined {
    let best: Slot | undefined;
    for (const s of this.slots) {
      if (s.draining || s.inFlight >= this.opts.tabsPerBrowser) continue;
      if (!s.launched && !s.launching) continue;
      if (!best || s.inFlight < best.inFlight || (s.inFlight === best.inFlight && s.idle.length > best.idle.length))
        best = s;
    }
    return best;
  }

  private occupy(slot: Slot): Slot {
    slot.inFlight += 1;
    slot.renders += 1;
    if (slot.renders >= this.opts.recycleAfter) slot.draining = true;
    return slot;
  }

  private dispatch(): void {
    while (this.queue.length) {
      const slot = this.roomy();
      if (!slot) return;
      const waiter = this.queue.shift()!;
      clearTimeout(waiter.timer);
      waiter.resolve(this.occupy(slot));
    }
  }

  private release(slot: Slot): void {
    slot.inFlight -= 1;
    if (slot.draining && slot.inFlight === 0 && !this.stopping) {
      this.opts.logger.info({ browser: slot.id, renders: slot.renders }, 'recycling browser');
      void this.closeBrowser(slot).then(() => this.relaunch(slot));
    }
    this.dispatch();
  }

  private async takeTab(slot: Slot): Promise<Tab> {
    // Killed a moment ago: the disconnected event may not have arrived yet.
    if (slot.launched && !slot.launched.browser.connected) this.onDisconnected(slot, slot.launched);
    if (slot.launching) await slot.launching;
    for (;;) {
      if (!slot.launched) throw new RenderError('crashed', `browser ${slot.id} is not running`);
      let tab: Tab | undefined;
      while ((tab = slot.idle.shift())) {
        if (this.usable(slot, tab)) break;
        void this.disposeTab(tab);
      }
      // Every lane the browser may hold is in a render, being wiped or being opened: one of those
      // is ready sooner (and cheaper) than another context with its own renderer process.
      if (
        !tab &&
        slot.resetting + slot.preparing > 0 &&
        slot.inFlight - 1 + slot.resetting + slot.preparing >= this.maxLanes
      ) {
        await new Promise<void>((resolve) => slot.laneWaiters.push(resolve));
        continue;
      }
      tab ??= await this.newTab(slot);
      tab.uses += 1;
      return tab;
    }
  }

  /** Lanes a browser holds at most: its renders in flight plus the spares. */
  private get maxLanes(): number {
    return this.opts.tabsPerBrowser + this.spares;
  }

  private laneReady(slot: Slot): void {
    for (const wake of slot.laneWaiters.splice(0)) wake();
  }

  private usable(slot: Slot, tab: Tab): boolean {
    return (
      !tab.crashed &&
      !tab.spoiled &&
      !tab.page.isClosed() &&
      tab.browser.connected &&
      slot.launched?.browser === tab.browser &&
      tab.uses < this.contextReuse
    );
  }

  private async newTab(slot: Slot): Promise<Tab> {
    const launched = slot.launched;
    if (!launched) throw new RenderError('crashed', `browser ${slot.id} is not running`);
    const session = await this.opts.proxy.openSession();
    try {
      const context = await launched.browser.createBrowserContext({
        proxyServer: `http://127.0.0.1:${session.port}`,
        // Without this Chromium would send loopback requests around the proxy.
        proxyBypassList: ['<-loopback>'],
      });
      const page = await context.newPage();
      const tab: Tab = {
        browserId: slot.id,
        browser: launched.browser,
        context,
        page,
        session,
        disconnected: slot.disconnected,
        crashed: false,
        uses: 0,
        spoiled: false,
        userAgentChanged: false,
        extraHeaders: false,
        mediaBlocked: false,
        windowId: 0,
        hidden: false,
      };
      page.once('error', () => (tab.crashed = true));
      const cdp = cdpOf(page);
      // No HTTP cache and no renderer memory cache for the lane: nothing a render fetched can
      // be served to a later one.
      const [, , win] = await Promise.all([
        launched.preparePage(page),
        page.setCacheEnabled(false),
        cdp.send('Browser.getWindowForTarget'),
        cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: `${FRAME_WATCH_SCRIPT};\n${SETTLE_WATCH_SCRIPT}` }),
      ]);
      tab.windowId = win.windowId;
      await this.setVisible(tab, false);
      return tab;
    } catch (err) {
      await this.opts.proxy.closeSession(session);
      throw new RenderError('crashed', `browser ${slot.id} could not open a tab`, {}, err);
    }
  }

  /** Shows or hides (minimizes) the lane's window; see render/hidden-render.ts. */
  async setVisible(tab: Tab, visible: boolean): Promise<void> {
    if (tab.hidden === !visible) return;
    await cdpOf(tab.page).send('Browser.setWindowBounds', {
      windowId: tab.windowId,
      bounds: { windowState: visible ? 'normal' : 'minimized' },
    });
    tab.hidden = !visible;
  }

  /** After a render: wipe the lane and keep it, or close it (and open a replacement ahead of demand). */
  private async giveBack(slot: Slot, tab: Tab): Promise<void> {
    tab.session.suspend();
    if (!this.stopping && !slot.draining && this.usable(slot, tab)) {
      try {
        await withTimeout(this.reset(slot, tab), RESET_TIMEOUT_MS, 'lane reset');
        if (this.usable(slot, tab) && !slot.draining && !this.stopping) {
          slot.idle.push(tab);
          return;
        }
      } catch (err) {
        this.opts.logger.debug({ err, browser: slot.id }, 'lane reset failed; closing it');
      }
    }
    await this.disposeTab(tab);
  }

  /**
   * What makes a reused lane as clean as a fresh incognito context for everything a site can
   * observe: the page is left (every frame, worker and timer of the render ends with it), the
   * proxy listener has already dropped its connections and refuses until the next render, and
   * then — in the lane's own browser context, which never uses a cache — cookies are cleared, every
   * origin the render sent a request to has its storage wiped (localStorage, IndexedDB, Cache
   * Storage, service workers, file systems), sessionStorage and window.name are cleared in
   * every frame before leaving, the navigation history (and so the back-forward cache) is
   * dropped, and the per-render settings are put back.
   */
  private async reset(slot: Slot, tab: Tab): Promise<void> {
    const { page, session } = tab;
    if (session.originsOverflow) throw new Error('too many origins to wipe');
    const cdp = cdpOf(page);
    const main = page.mainFrame();
    await Promise.all(
      page
        .frames()
        .filter((f) => f !== main)
        .map((f) => withTimeout(f.evaluate(CLEAR_TAB_STATE), 1_000, 'clearing tab state')),
    );
    // Leave the page from inside it: the blank document stays in the site's renderer process,
    // where a navigation from the browser side would start a new process (~100 ms) now and
    // another one for the next render. A page that refuses to go is left the hard way.
    try {
      await Promise.all([
        page.waitForNavigation({ waitUntil: 'load', timeout: 2_000 }),
        withTimeout(page.evaluate(`${CLEAR_TAB_STATE}; location.href = 'about:blank'`), 1_000, 'leaving the page'),
      ]);
    } catch {
      // Checked below.
    }
    if (page.url() !== 'about:blank') await page.goto('about:blank', { waitUntil: 'load', timeout: 2_000 });
    if (page.url() !== 'about:blank' || page.frames().length !== 1) throw new Error('the page did not leave');
    const steps: Promise<unknown>[] = [
      this.setVisible(tab, false),
      cdp.send('Network.clearBrowserCookies'),
      cdp.send('Page.resetNavigationHistory'),
      ...[...session.origins].map((origin) => cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })),
    ];
    if (tab.extraHeaders) steps.push(page.setExtraHTTPHeaders({}).then(() => (tab.extraHeaders = false)));
    if (tab.userAgentChanged) {
      const ua = slot.launched?.userAgent;
      if (!ua) throw new Error('no default user agent to restore');
      steps.push(page.setUserAgent(ua).then(() => (tab.userAgentChanged = false)));
    }
    await Promise.all(steps);
    session.origins.clear();
  }

  /** Keeps lanes ready (up to the spares) so a render does not wait for a context and a renderer process. */
  private topUp(slot: Slot): void {
    while (
      !this.stopping &&
      slot.launched &&
      !slot.launching &&
      !slot.draining &&
      slot.idle.length + slot.preparing < this.spares &&
      slot.idle.length + slot.preparing + slot.resetting + slot.inFlight < this.maxLanes
    ) {
      slot.preparing += 1;
      const launched = slot.launched;
      this.newTab(slot).then(
        (tab) => {
          slot.preparing -= 1;
          if (slot.launched === launched && !slot.draining && !this.stopping) slot.idle.push(tab);
          else void this.disposeTab(tab);
          this.laneReady(slot);
        },
        () => {
          slot.preparing -= 1;
          this.laneReady(slot);
        },
      );
    }
  }

  private async disposeTab(tab: Tab): Promise<void> {
    await tab.context.close().catch(() => undefined);
    await this.opts.proxy.closeSession(tab.session).catch(() => undefined);
  }

  private relaunch(slot: Slot): Promise<void> {
    if (this.stopping) return Promise.resolve();
    if (slot.launching) return slot.launching;
    slot.launching = (async () => {
      // Back off when Chromium keeps failing to start, rather than spin.
      if (slot.launchFailures > 0)
        await new Promise((r) => setTimeout(r, Math.min(5_000, 250 * 2 ** slot.launchFailures)));
      try {
        const launched = await this.launch({
          executablePath: this.opts.executablePath,
          headless: this.opts.headless,
          stealth: this.opts.stealth ?? true,
          args: [
            `--proxy-server=http://127.0.0.1:${this.proxyPort}`,
            '--proxy-bypass-list=<-loopback>',
            ...HIDDEN_RENDER_ARGS,
            ...(this.opts.args ?? []),
          ],
        });
        if (this.stopping) {
          await launched.browser.close().catch(() => undefined);
          await launched.cleanup();
          return;
        }
        slot.launched = launched;
        slot.renders = 0;
        slot.draining = false;
        slot.launchFailures = 0;
        slot.disconnected = new Promise<void>((resolve) =>
          launched.browser.once('disconnected', () => {
            resolve();
            this.onDisconnected(slot, launched);
          }),
        );
        this.opts.logger.info({ browser: slot.id, pid: launched.browser.process()?.pid }, 'browser launched');
      } catch (err) {
        slot.launchFailures += 1;
        this.opts.logger.error({ err, browser: slot.id }, 'browser launch failed');
      }
    })().finally(() => {
      slot.launching = undefined;
      if (slot.launched) this.topUp(slot);
      else if (!this.stopping) void this.relaunch(slot);
      this.dispatch();
    });
    return slot.launching;
  }

  private onDisconnected(slot: Slot, launched: LaunchedBrowser): void {
    void launched.cleanup();
    if (slot.launched !== launched) return;
    slot.launched = undefined;
    for (const tab of slot.idle.splice(0)) void this.opts.proxy.closeSession(tab.session);
    this.laneReady(slot);
    if (this.stopping) return;
    this.opts.logger.warn({ browser: slot.id }, 'browser disconnected; relaunching');
    void this.relaunch(slot);
  }

  private async closeBrowser(slot: Slot): Promise<void> {
    const launched = slot.launched;
    if (!launched) return;
    slot.launched = undefined;
    const idle = slot.idle.splice(0);
    await Promise.all(idle.map((t) => this.opts.proxy.closeSession(t.session).catch(() => undefined)));
    await launched.browser.close().catch(() => launched.browser.process()?.kill('SIGKILL'));
    await launched.cleanup();
  }
}
