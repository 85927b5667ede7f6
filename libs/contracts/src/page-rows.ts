import type { CrawlPageRow } from './crawl.js';
import {
  FoundVia,
  JobStatus,
  PageErrorCode,
  PageShape,
  Verdict,
  type CrawlFacts,
  type JobEnvelope as JobEnvelopeMessage,
  type PageRow as PageRowMessage,
} from './generated/tidemark/page/v1/page.js';
import { protoEnum } from './proto-enum.js';
import { JOB_STATUSES, type JobEnvelope, type PageRow } from './scrape.js';
import { PAGE_ERROR_CODES, PAGE_SHAPES, VERDICTS, type PageErrorCode as ErrorCodeName } from './vocabulary.js';

// The page row and the job envelope between their REST shape (what services compose and the
// gateway answers) and tidemark.page.v1 (what crosses the wire). Scrape and crawl encode, the
// gateway and crawl (rows it asks scrape for) decode; both directions live here so they cannot
// drift apart. An absent optional is the REST null; an enum's UNSPECIFIED is null too.

export const FOUND_VIA = ['seed', 'link', 'sitemap', 'feed'] as const;

export const jobStatusEnum = protoEnum(JobStatus, 'JOB_STATUS', JOB_STATUSES);
export const verdictEnum = protoEnum(Verdict, 'VERDICT', Object.keys(VERDICTS) as (keyof typeof VERDICTS)[]);
export const pageErrorCodeEnum = protoEnum(
  PageErrorCode,
  'PAGE_ERROR_CODE',
  Object.keys(PAGE_ERROR_CODES) as ErrorCodeName[],
);
export const pageShapeEnum = protoEnum(PageShape, 'PAGE_SHAPE', PAGE_SHAPES);
export const foundViaEnum = protoEnum(FoundVia, 'FOUND_VIA', FOUND_VIA);

const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);
const orAbsent = <T>(value: T | null | undefined): T | undefined => (value === null ? undefined : value);
const enumOrNull = <N extends string, E extends number>(codec: { fromProto(value: E): N }, value: E): N | null =>
  value === 0 ? null : codec.fromProto(value);

/** Keys whose value is undefined are left out, as JSON leaves them: Struct has no undefined. */
const definedOnly = (value: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = v;
  return out;
};

const isCrawlRow = (row: PageRow | CrawlPageRow): row is CrawlPageRow => 'foundVia' in row;

export const pageRowToProto = (row: PageRow | CrawlPageRow): PageRowMessage => ({
  url: row.url,
  status: jobStatusEnum.toProto(row.status),
  httpStatus: orAbsent(row.httpStatus),
  verdict: row.verdict === null ? Verdict.VERDICT_UNSPECIFIED : verdictEnum.toProto(row.verdict),
  errorCode:
    row.errorCode === null ? PageErrorCode.PAGE_ERROR_CODE_UNSPECIFIED : pageErrorCodeEnum.toProto(row.errorCode),
  shape: row.shape === null ? PageShape.PAGE_SHAPE_UNSPECIFIED : pageShapeEnum.toProto(row.shape),
  warnings: row.warnings,
  signals: row.signals,
  method: orAbsent(row.method),
  tier: orAbsent(row.tier),
  credits: row.credits,
  billedAs: orAbsent(row.billedAs),
  climbedTo: orAbsent(row.climbedTo),
  words: row.words,
  language: orAbsent(row.language),
  markdown: row.markdown,
  text: row.text,
  cleanHtml: row.cleanHtml,
  html: row.html,
  links: row.links ? { urls: row.links } : undefined,
  fields: row.fields ? definedOnly(row.fields) : undefined,
  screenshot: row.screenshot,
  head: row.head ? definedOnly(row.head) : undefined,
  reason: orAbsent(row.reason),
  widget: orAbsent(row.widget),
  solved: orAbsent(row.solved),
  exitBytes: row.exitBytes,
  finalUrl: orAbsent(row.finalUrl),
  retryAfter: row.retryAfter,
  crawledAt: orAbsent(row.crawledAt),
  attempts: row.attempts
    ? {
        items: row.attempts.map((a) => ({
          rung: a.rung,
          httpStatus: orAbsent(a.httpStatus),
          verdict: orAbsent(a.verdict),
          errorCode: orAbsent(a.errorCode),
          signals: a.signals,
          ms: a.ms,
          error: a.error,
        })),
      }
    : undefined,
  crawl: isCrawlRow(row) ? crawlFactsToProto(row) : undefined,
});

const crawlFactsToProto = (row: CrawlPageRow): CrawlFacts => ({
  foundVia: foundViaEnum.toProto(row.foundVia),
  firstReferer: orAbsent(row.firstReferer),
  inSitemap: row.inSitemap,
  inLinks: row.inLinks,
  orphan: row.orphan,
  unlisted: row.unlisted,
  origin: row.origin,
  depth: row.depth,
});

/** The REST page row; keys the REST answer leaves out when not asked for stay out. */
export const pageRowFromProto = (m: PageRowMessage): PageRow => ({
  url: m.url,
  status: jobStatusEnum.fromProto(m.status),
  httpStatus: orNull(m.httpStatus),
  verdict: enumOrNull(verdictEnum, m.verdict),
  errorCode: enumOrNull(pageErrorCodeEnum, m.errorCode),
  shape: enumOrNull(pageShapeEnum, m.shape),
  warnings: m.warnings,
  signals: m.signals,
  method: orNull(m.method),
  tier: orNull(m.tier),
  credits: m.credits,
  billedAs: orNull(m.billedAs),
  climbedTo: orNull(m.climbedTo),
  words: m.words,
  language: orNull(m.language),
  ...(m.markdown !== undefined ? { markdown: m.markdown } : {}),
  ...(m.text !== undefined ? { text: m.text } : {}),
  ...(m.cleanHtml !== undefined ? { cleanHtml: m.cleanHtml } : {}),
  ...(m.html !== undefined ? { html: m.html } : {}),
  ...(m.links ? { links: m.links.urls } : {}),
  ...(m.fields ? { fields: m.fields } : {}),
  ...(m.screenshot !== undefined ? { screenshot: m.screenshot } : {}),
  head: m.head ?? null,
  reason: orNull(m.reason),
  widget: orNull(m.widget),
  solved: orNull(m.solved),
  exitBytes: m.exitBytes,
  finalUrl: orNull(m.finalUrl),
  ...(m.retryAfter !== undefined ? { retryAfter: m.retryAfter } : {}),
  crawledAt: orNull(m.crawledAt),
  ...(m.attempts
    ? {
        attempts: m.attempts.items.map((a) => ({
          rung: a.rung,
          httpStatus: orNull(a.httpStatus),
          verdict: orNull(a.verdict),
          errorCode: orNull(a.errorCode),
          signals: a.signals,
          ms: a.ms,
          ...(a.error !== undefined ? { error: a.error } : {}),
        })),
      }
    : {}),
});

/** A crawl row: the page row with its place in the crawl (a broken peer when that is missing). */
export const crawlPageRowFromProto = (m: PageRowMessage): CrawlPageRow => {
  const facts = m.crawl;
  if (!facts) throw new Error(`crawl row ${m.url} has no crawl facts`);
  return {
    ...pageRowFromProto(m),
    foundVia: foundViaEnum.fromProto(facts.foundVia),
    firstReferer: orNull(facts.firstReferer),
    inSitemap: facts.inSitemap,
    inLinks: facts.inLinks,
    orphan: facts.orphan,
    unlisted: facts.unlisted,
    origin: facts.origin,
    depth: facts.depth,
  };
};

type EnvelopeFields = Omit<JobEnvelope, 'data'> & { data: (PageRow | CrawlPageRow)[] };

export const jobEnvelopeToProto = (envelope: EnvelopeFields): JobEnvelopeMessage => ({
  id: envelope.id,
  kind: envelope.kind,
  status: jobStatusEnum.toProto(envelope.status),
  progress: envelope.progress,
  creditsUsed: envelope.creditsUsed,
  counts: envelope.counts,
  data: envelope.data.map(pageRowToProto),
  next: orAbsent(envelope.next),
  cursor: orAbsent(envelope.cursor),
  stop: orAbsent(envelope.stop),
  requestId: orAbsent(envelope.request_id),
  error: orAbsent(envelope.error),
  createdAt: envelope.createdAt,
});

export const jobEnvelopeFromProto = <R>(
  m: JobEnvelopeMessage,
  row: (m: PageRowMessage) => R,
): Omit<JobEnvelope, 'data'> & { data: R[] } => {
  if (!m.progress) throw new Error(`job ${m.id} has no progress`);
  return {
    id: m.id,
    kind: m.kind,
    status: jobStatusEnum.fromProto(m.status),
    progress: m.progress,
    creditsUsed: m.creditsUsed,
    counts: m.counts,
    data: m.data.map(row),
    next: orNull(m.next),
    cursor: orNull(m.cursor),
    stop: orNull(m.stop),
    request_id: orNull(m.requestId),
    error: orNull(m.error),
    createdAt: m.createdAt,
  };
};
