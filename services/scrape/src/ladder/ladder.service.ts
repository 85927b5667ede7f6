// Long (~440 lines) because the ladder's climb, its credits (hold per rung, one charge) and its
// verdicts are one decision per page; the rungs, robots, options and deployment's rungs are files
// of their own beside it.
import {
  documentCredits,
  ENGINE_LADDER,
  isSealedValue,
  PAGE_ERROR_CODES,
  type EngineRung,
  type PageErrorCode,
  type PageRow,
} from '@tidemark/contracts';
import { ApiError } from '@tidemark/errors';
import type { Logger } from '@tidemark/telemetry';
import { BrowserUnavailable, type BrowserRung, type Rendered } from './browser-rung.js';
import type { RungsPort } from './deployment-rungs.js';
import { FetchFailure } from './fetch-error.js';
import type { Fetched, HttpRung } from './http-rung.js';
import type { LadderOptions } from './options.js';
import type { RobotsCheck } from './robots-check.js';
import type { PageReading } from '../reading/read-page.js';
import { keptBodies } from '../reading/kept-bodies.js';
import { ReadingFailed, type PageReaderPool } from '../reading/page-reader-pool.js';

/**
 * Units that draw on one block of credits held for them all, instead of a hold each: a crawl's
 * pages, a scrape job's pages, a workspace's one-URL scrapes on this replica.
 */
export interface CreditPool {
  id: string;
  /**
   * Whether a charge may wait a little for others to share its call: a crawl page's, which
   * nothing waits on but its message's ack; never a charge a caller waits on.
   */
  chargesLinger?: boolean;
}

/** What billing answers to; the ladder holds before a rung and charges after. */
export interface CreditsPort {
  authorize(workspaceId: string, reference: string, credits: number, pool?: CreditPool): Promise<void>;
  charge(workspaceId: string, reference: string, credits: number): Promise<void>;
}

/** A stored copy young enough for maxAge. */
export interface CachePort {
  fresh(workspaceId: string, url: string, since: Date): Promise<PageResult | null>;
}

export interface PageRef {
  /** The block the page's credits are drawn on (absent: a hold of its own for each rung). */
  creditPool?: CreditPool;
  /**
   * Its charge is left running (PageResult.charged) for the caller to await: a crawl's page once
   * its result is handed on; a scrape job's page (jobs/job-page.ts) while its row is written.
   */
  chargeBehind?: boolean;
  /**
   * What is written while the page is fetched and read (a one-URL scrape's job and row), awaited
   * before the page is priced: a failure releases the holds and is thrown, nothing charged.
   */
  ready?: Promise<unknown>;
  /**
   * Nobody waits on this page alone (a crawl's, a batch job's): it may be read on the threads
   * kept from one-URL calls (SCRAPE_BULK_READ_THREADS).
   */
  bulk?: boolean;
  workspaceId: string;
  jobId: string;
  position: number;
  url: string;
}

export interface Bodies {
  markdown?: string;
  text?: string;
  cleanHtml?: string;
  html?: string;
  links?: string[];
}

/** The row without its bodies, the bodies, and the screenshot. */
export interface PageResult {
  row: Omit<PageRow, keyof Bodies | 'screenshot'>;
  bodies: Bodies;
  /**
   * `bodies` as the row stores them, made where the page was read (PageReading.stored); absent,
   * the row's write makes them. Whoever changes `bodies` drops it.
   */
  storedBodies?: Uint8Array<ArrayBuffer> | null;
  screenshot?: Buffer;
  /** Billing refused a rung because the workspace's credits ran out (a crawl stops on it). */
  creditsExhausted?: boolean;
  /**
   * A page's charge left running (PageRef.chargeBehind), still on its way to billing: the caller awaits
   * it before its work is acknowledged, so a worker that dies first leaves the page to a
   * redelivery that charges it again (a page's charge is idempotent by its reference).
   */
  charged?: Promise<void>;
}

type LadderStop = { code: 'TIER_LIMIT' | 'BUDGET_EXHAUSTED'; reason: string; creditsExhausted?: boolean };

interface Attempt {
  rung: (typeof ENGINE_LADDER)[number];
  fetched?: Fetched | Rendered;
  reading?: PageReading;
  failure?: FetchFailure;
  ms: number;
}

const rungIndex = (rung: EngineRung) => ENGINE_LADDER.findIndex((r) => r.rung === rung);

/**
 * The engine ladder for one page: the cheapest rung first, a climb only when the verdict says
 * the page was not read, this deployment has the rung above (browser+exit needs residential exits)
 * and maxTier, maxCredits and the workspace's credits allow. Credits are
 * held before each rung and the page is charged once, at the price of the highest rung that got
 * an answer; a page nothing answered (NETWORK, TIMEOUT) costs nothing.
 */
export class LadderService {
  constructor(
    private readonly http: HttpRung,
    private readonly browser: BrowserRung,
    private readonly credits: CreditsPort,
    private readonly cache: CachePort,
    /** Parses and reads each fetched page off the event loop, within a time budget. */
    private readonly reader: PageReaderPool,
    /** robots.txt, read only for a scrape that asks for it (a crawl decides before it dispatches). */
    private readonly robots: RobotsCheck,
    private readonly logger: Logger,
    /** Opens a value sealed with SECRETS_KEY (libs/secret-box): fetch.headers come sealed. */
    private readonly openSecret: (sealed: string) => string,
    /** Which rungs this deployment has: a page never climbs to, or is stopped short of, one it lacks. */
    private readonly rungs: RungsPort,
  ) {}

  async scrape(page: PageRef, opts: LadderOptions): Promise<PageResult> {
    const fetchCfg = opts.config.fetch;
    // fetch.headers travel sealed (the gateway sealed them as they came in); they are opened
    // here, for the rungs only, and never stored or logged in the clear.
    const headers = this.openHeaders(fetchCfg.headers);
    if (!headers)
      return {
        row: {
          ...emptyRow(page.url),
          status: 'error',
          reason: 'the fetch.headers of this request could not be opened (sealed under another SECRETS_KEY)',
          crawledAt: new Date().toISOString(),
        },
        bodies: {},
      };
    if (opts.respectRobots && !(await this.robots.allows(page.url))) return robotsResult(page.url);
    if (fetchCfg.max_age !== null) {
      const cached = await this.cache.fresh(page.workspaceId, page.url, new Date(Date.now() - fetchCfg.max_age));
      if (cached) return cached;
    }

    const browserIndex = rungIndex('browser');
    const maxIndex = rungIndex(fetchCfg.max_tier);
    const attempts: Attempt[] = [];
    const holds: string[] = [];
    const warnings: string[] = [];
    let stop: LadderStop | undefined;
    const shot = opts.formats.includes('screenshot') ? opts.config.output.screenshot : null;
    let start = fetchCfg.render_js === 'always' ? browserIndex : 0;
    // A screenshot is taken by the browser: a page that asks for one starts there when its
    // maxTier and maxCredits allow (the http rung's answer would be thrown away), else the row
    // says why there is none.
    if (shot && opts.screenshotLeads !== false && start < browserIndex) {
      const browser = ENGINE_LADDER[browserIndex]!;
      if (browserIndex > maxIndex)
        warnings.push(`screenshot not taken: it needs the browser rung; maxTier is ${fetchCfg.max_tier}`);
      else if (opts.maxCreditsPerPage !== null && browser.credits > opts.maxCreditsPerPage)
        warnings.push(
          `screenshot not taken: the browser rung costs ${browser.credits} credits; maxCredits is ${opts.maxCreditsPerPage}`,
        );
      else start = browserIndex;
    }
    /** The browser pool did not answer: no rung above http is tried again for this page. */
    let browserDown = false;

    for (let i = start; i < ENGINE_LADDER.length; i++) {
      const rung = ENGINE_LADDER[i]!;
      if (browserDown && rung.tier === 'browser') break;
      // The top of this deployment's ladder (browser+exit without residential exits): no request
      // stopped the page, so it keeps what stood in its way (CAPTCHA, BLOCKED, GEO_RESTRICTED).
      // Only a rung that exists and maxTier forbids is a TIER_LIMIT.
      if (!(await this.rungs.has(rung.rung))) break;
      if (i > maxIndex) {
        stop = { code: 'TIER_LIMIT', reason: `the ${rung.rung} rung would be needed; maxTier is ${fetchCfg.max_tier}` };
        break;
      }
      if (opts.maxCreditsPerPage !== null && rung.credits > opts.maxCreditsPerPage) {
        stop = {
          code: 'BUDGET_EXHAUSTED',
          reason: `the ${rung.rung} rung costs ${rung.credits} credits; maxCredits is ${opts.maxCreditsPerPage}`,
        };
        break;
      }
      const reference = pageReference(page, rung.rung);
      try {
        await this.credits.authorize(page.workspaceId, reference, rung.credits, page.creditPool);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'credits_exhausted') {
          if (i === start && i > 0 && shot && fetchCfg.render_js !== 'always') {
            // Not enough for the browser's screenshot: the page is read by the http rung.
            warnings.push(`screenshot not taken: the ${rung.rung} rung costs ${rung.credits} credits; ${err.message}`);
            i = -1;
            continue;
          }
          stop = {
            code: 'BUDGET_EXHAUSTED',
            reason: `the ${rung.rung} rung costs ${rung.credits} credits; ${err.message}`,
            creditsExhausted: true,
          };
          break;
        }
        throw err;
      }
      holds.push(reference);
      const attempt: Attempt = { rung, ms: 0 };
      attempts.push(attempt);
      const began = performance.now();
      try {
        attempt.fetched =
          rung.tier === 'http'
            ? await this.http.fetch(page.url, { timeoutMs: fetchCfg.timeout * 1000, headers })
            : await this.browser.fetch(page.url, {
                timeoutMs: fetchCfg.timeout * 1000,
                headers,
                waitForMs: fetchCfg.wait_for,
                screenshot: shot,
                useExit: rung.rung === 'browser+exit',
              });
      } catch (err) {
        if (err instanceof BrowserUnavailable) {
          attempts.pop();
          warnings.push('browser tier unavailable');
          browserDown = true;
          // A page that started at the browser (render_js always, a screenshot) is read by the
          // http rung instead; one that climbed keeps what the lower rung read.
          if (attempts.length === 0 && i > 0) {
            this.logger.warn({ err, url: page.url }, 'browser tier unavailable; reading the page over http');
            i = -1;
            continue;
          }
          this.logger.warn({ err, url: page.url }, 'browser tier unavailable; keeping the lower rung');
          break;
        }
        if (!(err instanceof FetchFailure)) throw err;
        attempt.failure = err;
        attempt.ms = Math.round(performance.now() - began);
        break; // no answer at all: a higher rung would meet the same network
      }
      const widget = 'widget' in attempt.fetched ? (attempt.fetched as Rendered).widget : undefined;
      try {
        attempt.reading = await this.reader.read(attempt.fetched, rung.tier, opts, widget, page.bulk === true);
      } catch (err) {
        if (!(err instanceof ReadingFailed)) throw err;
        // Fetched but not readable within bounds: no rung reads the same markup any cheaper.
        attempt.failure = new FetchFailure(err.errorCode, err.message);
        attempt.ms = Math.round(performance.now() - began);
        break;
      }
      attempt.ms = Math.round(performance.now() - began);
      if (attempt.reading.document) {
        // A document is read here whole (no browser reads it better) and priced by its pages.
        stop = await this.holdDocument(page, opts, attempt, holds);
        break;
      }
      if (!attempt.reading.verdict.climb) break;
    }

    if (page.ready)
      try {
        await page.ready;
      } catch (err) {
        await Promise.allSettled(holds.map((ref) => this.credits.charge(page.workspaceId, ref, 0)));
        throw err;
      }
    return this.settle(page, opts, attempts, holds, warnings, stop);
  }

  /**
   * A document costs documentCredits(pages) instead of the http rung's price: what the rung's
   * hold does not cover is held now. Over maxCredits, or past the workspace's credits, the
   * document is not delivered (BUDGET_EXHAUSTED, nothing charged).
   */
  private async holdDocument(
    page: PageRef,
    opts: LadderOptions,
    attempt: Attempt,
    holds: string[],
  ): Promise<LadderStop | undefined> {
    const facts = attempt.reading!.document!;
    const price = documentCredits(facts.pages);
    const extra = price - attempt.rung.credits;
    if (extra <= 0) return undefined;
    const what = `the document's ${facts.pages} pages cost ${price} credits`;
    if (opts.maxCreditsPerPage !== null && price > opts.maxCreditsPerPage) {
      delete attempt.reading;
      return { code: 'BUDGET_EXHAUSTED', reason: `${what}; maxCredits is ${opts.maxCreditsPerPage}` };
    }
    const reference = pageReference(page, 'document');
    try {
      await this.credits.authorize(page.workspaceId, reference, extra);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'credits_exhausted') {
        delete attempt.reading;
        return { code: 'BUDGET_EXHAUSTED', reason: `${what}; ${err.message}`, creditsExhausted: true };
      }
      throw err;
    }
    holds.push(reference);
    return undefined;
  }

  /** The headers in the clear (a plain value, kept from before sealing began, as it is); null if one cannot be opened. */
  private openHeaders(headers: Record<string, string>): Record<string, string> | null {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (!isSealedValue(value)) out[name] = value;
      else
        try {
          out[name] = this.openSecret(value);
        } catch (err) {
          this.logger.warn({ err, header: name }, 'a fetch.headers value could not be opened');
          return null;
        }
    }
    return out;
  }

  private async settle(
    page: PageRef,
    opts: LadderOptions,
    attempts: Attempt[],
    holds: string[],
    warnings: string[],
    stop: LadderStop | undefined,
  ): Promise<PageResult> {
    const exhausted = stop?.creditsExhausted ? { creditsExhausted: true } : {};
    const answered = attempts.filter((a) => a.reading);
    const chosen = answered.at(-1);
    const priced = answered.at(-1)?.rung; // the highest rung that got an answer
    const climbedTo = attempts.at(-1)?.rung.rung ?? null;
    // A document is priced by its pages (its extra hold is released; the charge covers it).
    const document = chosen?.reading?.document;
    const credits = document ? documentCredits(document.pages) : (priced?.credits ?? 0);
    // One charge for the page; every other hold is released.
    const chargedRef = priced ? pageReference(page, priced.rung) : undefined;
    const charging = Promise.all(
      holds.map((ref) => this.credits.charge(page.workspaceId, ref, ref === chargedRef ? credits : 0)),
    ).then(() => undefined);
    // A charge left behind goes on while the page's row is written (and a crawl page's result
    // handed on): the caller awaits it (a failure seen before then is not an unhandled rejection).
    const behind = page.chargeBehind === true;
    if (behind) charging.catch(() => undefined);
    else await charging;
    const charged = behind ? { charged: charging } : {};

    const crawledAt = new Date().toISOString();
    const evidence = attempts.map((a) => ({
      rung: a.rung.rung,
      httpStatus: a.fetched?.status ?? null,
      verdict: a.reading?.verdict.verdict ?? null,
      errorCode: a.reading?.verdict.errorCode ?? a.failure?.errorCode ?? null,
      signals: a.reading?.verdict.signals ?? [],
      ms: a.ms,
      ...(a.failure ? { error: a.failure.message } : {}),
    }));
    if (!chosen) {
      const failure = attempts.at(-1)?.failure;
      const errorCode: PageErrorCode = failure?.errorCode ?? stop?.code ?? 'NETWORK';
      return {
        row: {
          ...emptyRow(page.url),
          status: failure ? 'error' : 'done',
          verdict: 'blocked',
          errorCode,
          warnings,
          climbedTo,
          reason: failure?.message ?? stop?.reason ?? PAGE_ERROR_CODES[errorCode],
          crawledAt,
          attempts: evidence,
        },
        bodies: {},
        ...exhausted,
        ...charged,
      };
    }

    const { reading, fetched, rung } = chosen as Required<Pick<Attempt, 'reading' | 'fetched' | 'rung'>>;
    const lastFailure = attempts.at(-1)?.failure;
    if (lastFailure) warnings.push(`${attempts.at(-1)!.rung.rung} rung failed: ${lastFailure.message}`);
    const rendered = 'widget' in fetched ? (fetched as Rendered) : undefined;
    if (opts.formats.includes('screenshot')) {
      if (rendered?.screenshotNote) warnings.push(rendered.screenshotNote);
      else if (!rendered?.screenshot && !warnings.some((w) => w.startsWith('screenshot not taken')))
        warnings.push(`screenshot not taken: the page was read by the ${rung.rung} rung`);
    }
    const v = reading.verdict;
    const signals = [...v.signals];
    if (
      rung.tier === 'browser' &&
      v.verdict !== 'blocked' &&
      answered.some((a) => a.reading!.verdict.errorCode === 'SHELL')
    ) {
      signals.unshift('render confirmed');
    }
    const stoppedClimbing = v.climb && stop;
    const errorCode: PageErrorCode = stoppedClimbing ? stop.code : v.errorCode;
    const c = reading.content;
    const bodies = keptBodies(opts.formats, c, fetched.html);
    return {
      row: {
        url: page.url,
        status: 'done',
        httpStatus: fetched.status || null,
        verdict: v.verdict,
        errorCode,
        shape: v.shape ?? null,
        warnings: [...v.warnings, ...warnings],
        signals,
        method: rung.rung,
        tier: rung.tier,
        credits,
        billedAs: priced && priced.rung !== rung.rung ? priced.rung : null,
        climbedTo,
        words: c.words,
        language: c.language,
        ...(c.fields ? { fields: c.fields } : {}),
        head: c.head as unknown as Record<string, unknown>,
        reason: stoppedClimbing
          ? `${reasonFor(v.errorCode, v.signals)}; ${stop.reason}`
          : (reading.reason ?? reasonFor(errorCode, v.signals)),
        widget: rendered?.widget || null,
        solved: rendered?.widget ? rendered.solved || 'none' : null,
        exitBytes: rendered?.exitBytes ?? 0,
        finalUrl: fetched.finalUrl,
        ...(v.retryAfter !== undefined ? { retryAfter: v.retryAfter } : {}),
        crawledAt,
        attempts: evidence,
      },
      bodies,
      ...(reading.stored !== undefined ? { storedBodies: reading.stored } : {}),
      ...(rendered?.screenshot ? { screenshot: rendered.screenshot } : {}),
      ...(stoppedClimbing ? exhausted : {}),
      ...charged,
    };
  }

  /**
   * A crawl page's charge sent again, from its stored row (a redelivered page whose worker died
   * after writing the row and before its charge was written): the same reference as the first
   * time, so a charge that was written is not written twice.
   */
  async chargeAgain(page: Omit<PageRef, 'url'>, row: Pick<PageResult['row'], 'method' | 'billedAs' | 'credits'>) {
    const rung = row.billedAs ?? row.method;
    if (!rung || row.credits <= 0) return;
    await this.credits.charge(page.workspaceId, pageReference(page, rung), row.credits);
  }
}

/**
 * What billing knows a page's hold or charge by: one per rung (and one for a document's extra
 * pages). A charge sent again under the same reference is not written twice.
 */
const pageReference = (page: Pick<PageRef, 'jobId' | 'position'>, what: string): string =>
  `page:${page.jobId}:${page.position}:${what}`;

const reasonFor = (code: PageErrorCode, signals: string[]): string =>
  code === 'OK' ? 'read' : `${PAGE_ERROR_CODES[code]} (${signals.slice(0, 3).join(', ')})`;

export const emptyRow = (url: string): PageResult['row'] => ({
  url,
  status: 'queued',
  httpStatus: null,
  verdict: null,
  errorCode: null,
  shape: null,
  warnings: [],
  signals: [],
  method: null,
  tier: null,
  credits: 0,
  billedAs: null,
  climbedTo: null,
  words: 0,
  language: null,
  head: null,
  reason: null,
  widget: null,
  solved: null,
  exitBytes: 0,
  finalUrl: null,
  crawledAt: null,
});

/** A page robots.txt forbids: a row that says so, nothing fetched or charged. */
export const robotsResult = (url: string): PageResult => ({
  row: {
    ...emptyRow(url),
    status: 'done',
    verdict: 'robots',
    signals: ['robots.txt'],
    reason: 'robots.txt forbids fetching it',
    crawledAt: new Date().toISOString(),
  },
  bodies: {},
});
