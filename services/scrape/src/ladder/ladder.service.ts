import {
  ENGINE_LADDER,
  PAGE_ERROR_CODES,
  type EngineRung,
  type PageErrorCode,
  type PageRow,
} from '@tidemark/contracts';
import { ApiError } from '@tidemark/errors';
import type { Logger } from '@tidemark/telemetry';
import { BrowserUnavailable, type BrowserRung, type Rendered } from './browser-rung.js';
import { FetchFailure } from './fetch-error.js';
import type { Fetched, HttpRung } from './http-rung.js';
import type { LadderOptions } from './options.js';
import { readPage, type PageReading } from './read-page.js';

/** What billing answers to; the ladder holds before a rung and charges after. */
export interface CreditsPort {
  authorize(workspaceId: string, reference: string, credits: number): Promise<void>;
  charge(workspaceId: string, reference: string, credits: number): Promise<void>;
}

/** A stored copy young enough for maxAge. */
export interface CachePort {
  fresh(workspaceId: string, url: string, since: Date): Promise<PageResult | null>;
}

export interface PageRef {
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
  screenshot?: Buffer;
}

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
 * the page was not read and maxTier, maxCredits and the workspace's credits allow. Credits are
 * held before each rung and the page is charged once, at the price of the highest rung that got
 * an answer; a page nothing answered (NETWORK, TIMEOUT) costs nothing.
 */
export class LadderService {
  constructor(
    private readonly http: HttpRung,
    private readonly browser: BrowserRung,
    private readonly credits: CreditsPort,
    private readonly cache: CachePort,
    private readonly logger: Logger,
  ) {}

  async scrape(page: PageRef, opts: LadderOptions): Promise<PageResult> {
    const fetchCfg = opts.config.fetch;
    if (fetchCfg.max_age !== null) {
      const cached = await this.cache.fresh(page.workspaceId, page.url, new Date(Date.now() - fetchCfg.max_age));
      if (cached) return cached;
    }

    const start = fetchCfg.render_js === 'always' ? rungIndex('browser') : 0;
    const maxIndex = rungIndex(fetchCfg.max_tier);
    const attempts: Attempt[] = [];
    const holds: string[] = [];
    const warnings: string[] = [];
    let stop: { code: 'TIER_LIMIT' | 'BUDGET_EXHAUSTED'; reason: string } | undefined;

    for (let i = start; i < ENGINE_LADDER.length; i++) {
      const rung = ENGINE_LADDER[i]!;
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
      const reference = `page:${page.jobId}:${page.position}:${rung.rung}`;
      try {
        await this.credits.authorize(page.workspaceId, reference, rung.credits);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'credits_exhausted') {
          stop = {
            code: 'BUDGET_EXHAUSTED',
            reason: `the ${rung.rung} rung costs ${rung.credits} credits; ${err.message}`,
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
            ? await this.http.fetch(page.url, { timeoutMs: fetchCfg.timeout * 1000, headers: fetchCfg.headers })
            : await this.browser.fetch(page.url, {
                timeoutMs: fetchCfg.timeout * 1000,
                headers: fetchCfg.headers,
                waitForMs: fetchCfg.wait_for,
                screenshot: opts.formats.includes('screenshot'),
                useExit: rung.rung === 'browser+exit',
              });
      } catch (err) {
        if (err instanceof BrowserUnavailable) {
          attempts.pop();
          warnings.push('browser tier unavailable');
          this.logger.warn({ err, url: page.url }, 'browser tier unavailable; keeping the lower rung');
          break;
        }
        if (!(err instanceof FetchFailure)) throw err;
        attempt.failure = err;
        attempt.ms = Math.round(performance.now() - began);
        break; // no answer at all: a higher rung would meet the same network
      }
      const widget = 'widget' in attempt.fetched ? (attempt.fetched as Rendered).widget : undefined;
      attempt.reading = readPage(attempt.fetched, rung.tier, opts, widget);
      attempt.ms = Math.round(performance.now() - began);
      if (!attempt.reading.verdict.climb) break;
    }

    return this.settle(page, opts, attempts, holds, warnings, stop);
  }

  private async settle(
    page: PageRef,
    opts: LadderOptions,
    attempts: Attempt[],
    holds: string[],
    warnings: string[],
    stop: { code: 'TIER_LIMIT' | 'BUDGET_EXHAUSTED'; reason: string } | undefined,
  ): Promise<PageResult> {
    const answered = attempts.filter((a) => a.reading);
    const chosen = answered.at(-1);
    const priced = answered.at(-1)?.rung; // the highest rung that got an answer
    const climbedTo = attempts.at(-1)?.rung.rung ?? null;
    const credits = priced?.credits ?? 0;
    // One charge for the page; every other hold is released.
    const chargedRef = priced ? `page:${page.jobId}:${page.position}:${priced.rung}` : undefined;
    await Promise.all(holds.map((ref) => this.credits.charge(page.workspaceId, ref, ref === chargedRef ? credits : 0)));

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
      };
    }

    const { reading, fetched, rung } = chosen as Required<Pick<Attempt, 'reading' | 'fetched' | 'rung'>>;
    const lastFailure = attempts.at(-1)?.failure;
    if (lastFailure) warnings.push(`${attempts.at(-1)!.rung.rung} rung failed: ${lastFailure.message}`);
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
    const rendered = 'widget' in fetched ? (fetched as Rendered) : undefined;
    const formats = new Set(opts.formats);
    const c = reading.content;
    const bodies: Bodies = {
      ...(formats.has('markdown') && c.markdown !== undefined ? { markdown: c.markdown } : {}),
      ...(formats.has('text') && c.text !== undefined ? { text: c.text } : {}),
      ...(formats.has('cleanHtml') && c.cleanHtml !== undefined ? { cleanHtml: c.cleanHtml } : {}),
      ...(formats.has('rawHtml') ? { html: fetched.html } : {}),
      ...(formats.has('links') && c.links ? { links: c.links } : {}),
    };
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
        reason: stoppedClimbing ? `${PAGE_ERROR_CODES[v.errorCode]}; ${stop.reason}` : reasonFor(errorCode, v.signals),
        widget: rendered?.widget || null,
        solved: rendered?.widget ? rendered.solved || 'none' : null,
        exitBytes: rendered?.exitBytes ?? 0,
        finalUrl: fetched.finalUrl,
        ...(v.retryAfter !== undefined ? { retryAfter: v.retryAfter } : {}),
        crawledAt,
        attempts: evidence,
      },
      bodies,
      ...(rendered?.screenshot ? { screenshot: rendered.screenshot } : {}),
    };
  }
}

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
