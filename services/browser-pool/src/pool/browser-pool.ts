import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import type { Logger } from '@tidemark/telemetry';
import type { ForwardProxy, ProxySession } from '../proxy/forward-proxy.js';
import { RenderError } from '../render/render-errors.js';
import { launchChromium, type LaunchedBrowser, type LaunchSpec } from './launch.js';

/** One render's tab: a fresh incognito context with one page, wired to its own proxy session. */
export interface Tab {
  browserId: number;
  context: BrowserContext;
  page: Page;
  session: ProxySession;
  /** Settles when the browser under the tab disconnects (crash, kill, recycle). */
  disconnected: Promise<void>;
  /** Set when the tab's renderer crashed (a warm tab may die before it is used). */
  crashed: boolean;
  browser: Browser;
}

export interface BrowserPoolOptions {
  executablePath: string;
  headless: boolean;
  browsers: number;
  tabsPerBrowser: number;
  /** Renders after which a browser is drained and relaunched. */
  recycleAfter: number;
  /** Warm tabs (context + page + proxy session) kept ready per browser. */
  sparesPerBrowser?: number;
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
  inFlight: number;
  draining: boolean;
  spares: Tab[];
  preparing: number;
  launchFailures: number;
}

interface Waiter {
  resolve(slot: Slot): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * Warm Chromium processes, each serving renders in fresh incognito contexts. Concurrency is
 * bounded by browsers × tabs; the rest wait in a FIFO queue. A browser that crashes or
 * disconnects is relaunched; one that has served `recycleAfter` renders is drained and
 * relaunched to bound its memory.
 */
export class BrowserPool {
  private readonly slots: Slot[];
  private readonly queue: Waiter[] = [];
  private stopping = false;
  private readonly launch: (spec: LaunchSpec) => Promise<LaunchedBrowser>;
  private readonly spares: number;
  /** The proxy's catch-all port Chromium is launched with (known once the proxy listens). */
  private proxyPort = 0;

  constructor(private readonly opts: BrowserPoolOptions) {
    this.launch = opts.launch ?? launchChromium;
    this.spares = opts.sparesPerBrowser ?? Math.min(2, opts.tabsPerBrowser);
    this.slots = Array.from({ length: opts.browsers }, (_, id) => ({
      id,
      launched: undefined,
      launching: undefined,
      disconnected: Promise.resolve(),
      renders: 0,
      inFlight: 0,
      draining: false,
      spares: [],
      preparing: 0,
      launchFailures: 0,
    }));
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
      slots: this.slots.map((s) => ({ id: s.id, up: !!s.launched, inFlight: s.inFlight, renders: s.renders })),
    };
  }

  /**
   * Runs `fn` in a fresh tab. Waits for room up to `queueTimeoutMs` (then `busy`); the tab's
   * context and proxy session are closed afterwards whatever happened.
   */
  async withTab<T>(queueTimeoutMs: number, fn: (tab: Tab) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const slot = await this.acquire(queueTimeoutMs);
      let tab: Tab | undefined;
      try {
        tab = await this.takeTab(slot);
        return await fn(tab);
      } catch (err) {
        // A browser that died under the render (killed, crashed as a whole) is relaunched; the
        // render is tried once more on a live one. A tab crash with its browser alive is not.
        const browserGone = !tab || !slot.launched || slot.launched.browser !== tab.browser || !tab.browser.connected;
        if (attempt === 0 && browserGone && !this.stopping) {
          this.opts.logger.warn({ browser: slot.id }, 'browser went away under a render; retrying once');
          continue;
        }
        throw err;
      } finally {
        if (tab) void this.disposeTab(tab);
        this.release(slot);
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

  /** The slot with the fewest renders in flight that may take one more. */
  private roomy(): Slot | undefined {
    let best: Slot | undefined;
    for (const s of this.slots) {
      if (s.draining || s.inFlight >= this.opts.tabsPerBrowser) continue;
      if (!s.launched && !s.launching) continue;
      if (!best || s.inFlight < best.inFlight) best = s;
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
    if (!slot.launched) throw new RenderError('crashed', `browser ${slot.id} is not running`);
    let tab: Tab | undefined;
    while ((tab = slot.spares.shift())) {
      if (!tab.page.isClosed() && !tab.crashed) break;
      void this.disposeTab(tab);
    }
    tab ??= await this.newTab(slot);
    this.topUp(slot);
    return tab;
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
      };
      page.once('error', () => (tab.crashed = true));
      await launched.preparePage(page);
      return tab;
    } catch (err) {
      await this.opts.proxy.closeSession(session);
      throw new RenderError('crashed', `browser ${slot.id} could not open a tab`, {}, err);
    }
  }

  /** Keeps warm tabs ready so a render does not wait for a context and a renderer process. */
  private topUp(slot: Slot): void {
    while (!this.stopping && slot.launched && !slot.draining && slot.spares.length + slot.preparing < this.spares) {
      slot.preparing += 1;
      const launched = slot.launched;
      this.newTab(slot).then(
        (tab) => {
          slot.preparing -= 1;
          if (slot.launched === launched && !slot.draining && !this.stopping) slot.spares.push(tab);
          else void this.disposeTab(tab);
        },
        () => {
          slot.preparing -= 1;
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
          stealth: true,
          args: [`--proxy-server=http://127.0.0.1:${this.proxyPort}`, '--proxy-bypass-list=<-loopback>'],
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
    for (const tab of slot.spares.splice(0)) void this.opts.proxy.closeSession(tab.session);
    if (this.stopping) return;
    this.opts.logger.warn({ browser: slot.id }, 'browser disconnected; relaunching');
    void this.relaunch(slot);
  }

  private async closeBrowser(slot: Slot): Promise<void> {
    const launched = slot.launched;
    if (!launched) return;
    slot.launched = undefined;
    const spares = slot.spares.splice(0);
    await Promise.all(spares.map((t) => this.opts.proxy.closeSession(t.session).catch(() => undefined)));
    await launched.browser.close().catch(() => launched.browser.process()?.kill('SIGKILL'));
    await launched.cleanup();
  }
}
