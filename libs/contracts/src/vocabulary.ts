/**
 * The words a page row speaks (spec: Page row), with their meanings, as `GET /v1/meta` serves
 * them. libs/verdict decides which apply to a page; this is only the dictionary.
 */
export const VERDICTS = {
  ok: 'the page was read',
  thin: 'short but a real page; kept (warning short, with its shape)',
  blocked: 'refused, or a 404 or soft 404; errorCode says which',
  skipped: 'under the word floor or outside the language list; the row stays but is left out of the change record',
  robots: 'robots.txt forbids fetching it',
  cached: 'served from a stored copy younger than maxAge',
} as const;
export type Verdict = keyof typeof VERDICTS;

export const PAGE_ERROR_CODES = {
  OK: 'read; a short page is OK with the warning short',
  SHELL: 'an app shell whose content needs JavaScript',
  BLOCKED: 'the site refused us (403, a challenge or block page)',
  NOT_FOUND: 'a 404, 410 or soft 404',
  RATE_LIMITED: 'the site answered 429; Retry-After is honoured',
  CAPTCHA: 'a captcha widget stands before the content',
  LOGIN_REQUIRED: 'the content is behind a login',
  GEO_RESTRICTED: 'the site refuses our region',
  TIER_LIMIT: 'a higher tier than allowed would have read it',
  BUDGET_EXHAUSTED: 'the remaining credits could not buy the engine that would have read it',
  TIMEOUT: 'the page did not answer in time',
  NETWORK: 'DNS, connection or TLS failure, or an address the fetch guard refuses',
} as const;
export type PageErrorCode = keyof typeof PAGE_ERROR_CODES;

export const PAGE_SHAPES = ['listing', 'table', 'form', 'empty'] as const;

/** The engine ladder, cheapest first. A page climbs only when the rung below did not read it. */
export const ENGINE_LADDER = [
  { rung: 'http', tier: 'http', credits: 1, note: 'plain HTTP fetch' },
  { rung: 'browser', tier: 'browser', credits: 5, note: 'headless Chromium' },
  {
    rung: 'browser+exit',
    tier: 'browser',
    credits: 10,
    note: 'headless Chromium through a residential exit; exitBytes metered',
  },
] as const;
export type EngineRung = (typeof ENGINE_LADDER)[number]['rung'];

export const MAP_CREDITS_PER_SITEMAP_FILE = 1;
export const WELCOME_CREDITS = 1000;

/**
 * A document (PDF, DOCX, PPTX, XLSX, ODT, RTF) read at the http rung is priced by its pages:
 * one credit per started block of `pagesPerCredit` pages (1-10 pages cost what an http page
 * costs, 11-20 two credits, …). A page is a PDF page or a slide; formats that flow (DOCX, ODT,
 * RTF, XLSX) count one page per started `wordsPerPage` words. At most `maxPages` pages are read
 * (and priced) of one document. A document kept unparsed (`parse_documents: false`) costs what an
 * http page costs. docs/decisions.md, "Documents".
 */
export const DOCUMENT_PRICING = {
  pagesPerCredit: 10,
  wordsPerPage: 500,
  maxPages: 500,
  formats: ['pdf', 'docx', 'pptx', 'xlsx', 'odt', 'rtf'],
} as const;

/** What a document of `pages` priced pages costs (at least the http rung's price). */
export const documentCredits = (pages: number): number =>
  Math.max(ENGINE_LADDER[0].credits, Math.ceil(Math.max(0, pages) / DOCUMENT_PRICING.pagesPerCredit));
