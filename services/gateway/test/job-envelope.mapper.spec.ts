import { describe, expect, it } from '@jest/globals';
import {
  crawlEnvelopeSchema,
  crawlV1,
  jobEnvelopeSchema,
  jobEnvelopeToProto,
  pageRowToProto,
  pageV1,
  scrapeV1,
  type CrawlPageRow,
  type JobEnvelope,
  type PageRow,
} from '@tidemark/contracts';
import { InternalError } from '@tidemark/errors';
import { crawlEnvelopeToRest, crawlPageRowToRest, jobEnvelopeToRest } from '../src/mappers/job-envelope.mapper.js';

// What the scrape and crawl services compose goes over the wire as tidemark.page.v1 and must come
// back as the same REST document: every null, every left-out body, the open field values.

const read: PageRow = {
  url: 'https://shop.example/kettles/steel-2l',
  status: 'done',
  httpStatus: 200,
  verdict: 'ok',
  errorCode: 'OK',
  shape: null,
  warnings: ['short'],
  signals: ['json-ld:Product', 'lang:en'],
  method: 'http',
  tier: 'http',
  credits: 1,
  billedAs: 'http',
  climbedTo: null,
  words: 412,
  language: 'en',
  markdown: '# Steel kettle 2 l\n\nBoils in 3 minutes.',
  cleanHtml: '<h1>Steel kettle 2 l</h1>',
  links: ['https://shop.example/kettles', 'https://shop.example/cart'],
  fields: { price: 39.5, name: 'Steel kettle', tags: ['steel', 'kitchen'], stock: null, sale: false },
  head: { title: 'Steel kettle 2 l', 'og:image': 'https://shop.example/k.jpg', robots: null },
  reason: null,
  widget: null,
  solved: null,
  exitBytes: 0,
  finalUrl: 'https://shop.example/kettles/steel-2l',
  crawledAt: '2026-11-22T10:00:00.000Z',
};

/** Nothing answered: every nullable null, no bodies, a Retry-After and the ladder's evidence. */
const refused: PageRow = {
  url: 'https://shop.example/busy',
  status: 'error',
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
  reason: 'the site answered 429',
  widget: null,
  solved: null,
  exitBytes: 0,
  finalUrl: null,
  retryAfter: 30,
  crawledAt: null,
  attempts: [
    { rung: 'http', httpStatus: 429, verdict: 'blocked', errorCode: 'RATE_LIMITED', signals: ['status:429'], ms: 41 },
    { rung: 'browser', httpStatus: null, verdict: null, errorCode: null, signals: [], ms: 5, error: 'closed' },
  ],
};

const envelope = (data: PageRow[]): JobEnvelope => ({
  id: 'job_01JD8S',
  kind: 'batch',
  status: 'running',
  progress: { done: 2, total: 5, queued: 3 },
  creditsUsed: 1,
  counts: { ok: 1, error: 1 },
  data,
  next: null,
  cursor: '2',
  stop: null,
  request_id: 'req_7',
  error: null,
  createdAt: '2026-11-22T09:59:58.000Z',
});

const overTheWire = (job: pageV1.JobEnvelope) =>
  scrapeV1.GetJobResponse.decode(scrapeV1.GetJobResponse.encode({ envelope: job }).finish()).envelope;

describe('job envelope mapper', () => {
  it('gives back the REST envelope the scrape service composed, rows and all', () => {
    const sent = envelope([read, refused]);
    const body = jobEnvelopeToRest(overTheWire(jobEnvelopeToProto(sent)));
    expect(body).toEqual(sent);
    expect(jobEnvelopeSchema.parse(body)).toEqual(sent);
    // Bodies not asked for stay out of the row rather than appearing as null or "".
    expect(Object.keys(body.data[1]!)).not.toEqual(expect.arrayContaining(['markdown']));
    expect('text' in body.data[0]!).toBe(false);
  });

  it('refuses an answer without its envelope instead of guessing one', () => {
    expect(() => jobEnvelopeToRest(undefined)).toThrow(InternalError);
  });

  it('maps a crawl envelope with each row’s place in the crawl', () => {
    const row: CrawlPageRow = {
      ...read,
      foundVia: 'sitemap',
      firstReferer: null,
      inSitemap: true,
      inLinks: 0,
      orphan: true,
      unlisted: false,
      origin: 'https://shop.example',
      depth: 1,
    };
    const { data, ...job } = envelope([]);
    const wire = crawlV1.GetCrawlResponse.decode(
      crawlV1.GetCrawlResponse.encode({
        envelope: { job: { ...jobEnvelopeToProto({ ...job, data: [row] }) }, projectId: 'prj_1', runId: 'run_1' },
      }).finish(),
    ).envelope;
    const body = crawlEnvelopeToRest(wire);
    expect(data).toEqual([]);
    expect(body).toEqual({ ...job, data: [row], projectId: 'prj_1', runId: 'run_1' });
    expect(crawlEnvelopeSchema.parse(body).data[0]!.foundVia).toBe('sitemap');
    expect(crawlPageRowToRest(pageRowToProto(row))).toEqual(row);
  });

  it('refuses a crawl row that lost its crawl facts', () => {
    expect(() => crawlPageRowToRest(pageRowToProto(read))).toThrow(/crawl facts/);
  });
});
