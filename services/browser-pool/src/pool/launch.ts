import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteerCore, { type Browser, type LaunchOptions, type Page } from 'puppeteer-core';
import { addExtra } from 'puppeteer-extra';
import StealthPlugin from 'puppeteer-extra-plugin-stealth';

/** The flags of STACK.md's Chromium recipe, plus quieter defaults for a render farm. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--mute-audio',
  '--hide-scrollbars',
  // WebRTC may not send UDP around the proxy (it would bypass the guard).
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider,SpareRendererForSitePerProcess',
];

export interface LaunchedBrowser {
  browser: Browser;
  /** Prepares a new page before use (the stealth evasions); resolves when it is safe to navigate. */
  preparePage(page: Page): Promise<void>;
  /** The user agent preparePage gives a page (a reused page gets it back after an override). */
  userAgent?: string;
  /** Removes the profile directory; call after the browser is gone. */
  cleanup(): Promise<void>;
}

export interface LaunchSpec {
  executablePath: string;
  headless: boolean;
  /** Extra flags (the pool adds its proxy). */
  args?: string[];
  /** The stealth plugin's evasions (the pool); plain puppeteer-core otherwise (the bench baseline). */
  stealth?: boolean;
}

interface Evasion {
  beforeLaunch?(opts: LaunchOptions): Promise<unknown>;
  onPageCreated?(page: Page): Promise<unknown>;
}

/**
 * puppeteer-extra-plugin-stealth's evasions, applied by us. puppeteer-extra runs a plugin's
 * onPageCreated from a `targetcreated` listener, which under puppeteer 24 races the page's own
 * start-up ("Requesting main frame too early", "Target closed" rejections nobody can catch).
 * Awaiting the same evasions on each page the pool opens is deterministic, and the page is
 * warm (fully disguised) before any navigation.
 */
let evasions: Evasion[] | undefined;
const stealthEvasions = (): Evasion[] => {
  if (!evasions) {
    const require = createRequire(import.meta.url);
    // The stealth plugin lists its evasions as dependencies: `stealth/evasions/<name>`.
    // user-agent-override fires its CDP call without awaiting it (an uncatchable rejection when
    // the page closes first): overrideUserAgent below does its job, awaited.
    const names = [...(StealthPlugin().dependencies as Set<string>)]
      .map((d) => d.replace(/^stealth\/evasions\//, ''))
      .filter((n) => n !== 'user-agent-override');
    evasions = names.map((name) => {
      const factory = require(`puppeteer-extra-plugin-stealth/evasions/${name}`) as () => Evasion;
      return factory();
    });
  }
  return evasions;
};

/** Launches Debian's Chromium with a fresh profile directory. */
export const launchChromium = async (spec: LaunchSpec): Promise<LaunchedBrowser> => {
  const userDataDir = await mkdtemp(join(tmpdir(), 'tidemark-chromium-'));
  const opts: LaunchOptions = {
    executablePath: spec.executablePath,
    headless: spec.headless,
    userDataDir,
    args: [...CHROMIUM_ARGS, ...(spec.args ?? [])],
    // Set on every new page as it is created (warm), so most renders need no resize.
    defaultViewport: { width: 1280, height: 800 },
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    protocolTimeout: 60_000,
  };
  const cleanup = () => rm(userDataDir, { recursive: true, force: true, maxRetries: 5 }).catch(() => undefined);
  try {
    if (!spec.stealth) {
      const browser = await puppeteerCore.launch(opts);
      return { browser, preparePage: async () => undefined, userAgent: await browser.userAgent(), cleanup };
    }
    const applied = stealthEvasions();
    for (const e of applied) await e.beforeLaunch?.(opts);
    // puppeteer-extra launches (its own launch hooks for registered plugins; none here).
    const browser = (await addExtra(puppeteerCore as unknown as Parameters<typeof addExtra>[0]).launch(
      opts as never,
    )) as unknown as Browser;
    // The headless user agent names itself: say Chrome, as a desktop browser does.
    const userAgent = (await browser.userAgent()).replace('HeadlessChrome/', 'Chrome/');
    return {
      browser,
      userAgent,
      preparePage: async (page) => {
        await Promise.all([page.setUserAgent(userAgent), ...applied.map((e) => e.onPageCreated?.(page))]);
      },
      cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
};
