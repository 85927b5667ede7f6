import type { Body, CrawlEnvelope, CrawlPageRow, MapEnvelope, PageRow, Query, ScrapeEnvelope } from '../api-types.js';
import type { ApiResponse, HttpClient, RequestOptions } from '../http.js';
import { paginate } from '../paging.js';
import { hasEnded, pollUntil, type WaitOptions } from '../waiting.js';

/** The project-free verb scrape: one URL answered now, or a batch (POST /scrape and its job). */
export class ScrapeJobs {
  constructor(private readonly http: HttpClient) {}

  /**
   * POST /scrape. One `url`: 200 with the page (or 202 when `timeout` ran out); `urls`: always
   * 202, poll with get/wait. Carries an Idempotency-Key, so it is retried safely.
   */
  start(body: Body<'/scrape', 'post'>, opts: RequestOptions = {}): Promise<ApiResponse<ScrapeEnvelope>> {
    return this.http.callWithResponse('post', '/scrape', { body, ...opts });
  }
  /** GET /scrape: recent scrape jobs, newest first. */
  list(query: Query<'/scrape', 'get'> = {}) {
    return this.http.call('get', '/scrape', { query });
  }
  /** GET /scrape/{id}: one job with a page of its rows. */
  get(id: string, query: Query<'/scrape/{id}', 'get'> = {}) {
    return this.http.call('get', '/scrape/{id}', { params: { id }, query });
  }
  /** Every row of a job, following `next`. */
  rows(id: string, query: Query<'/scrape/{id}', 'get'> = {}): AsyncGenerator<PageRow> {
    return paginate(
      this.http,
      () => this.get(id, query),
      (cursor) => this.get(id, { ...query, cursor }),
    );
  }
  /** DELETE /scrape/{id}: cancels the job. */
  cancel(id: string) {
    return this.http.call('delete', '/scrape/{id}', { params: { id } });
  }
  /** Polls the job until it has ended (done, error or cancelled). */
  wait(id: string, opts: WaitOptions<ScrapeEnvelope> = {}): Promise<ScrapeEnvelope> {
    return pollUntil(`scrape ${id}`, () => this.get(id, { limit: 1 }), hasEnded, opts);
  }
}

/** The project-free verb crawl: a one-shot crawl run as a hidden project (POST /crawl and its job). */
export class CrawlJobs {
  constructor(private readonly http: HttpClient) {}

  /** POST /crawl (202). Carries an Idempotency-Key, so it is retried safely. */
  start(body: Body<'/crawl', 'post'>, opts: RequestOptions = {}): Promise<CrawlEnvelope> {
    return this.http.call('post', '/crawl', { body, ...opts });
  }
  /** GET /crawl/{id}: the crawl with a page of its pages, oldest first. */
  get(id: string, query: Query<'/crawl/{id}', 'get'> = {}): Promise<CrawlEnvelope> {
    return this.http.call('get', '/crawl/{id}', { params: { id }, query });
  }
  /** Every page of the crawl so far, following `next`. */
  pages(id: string, query: Query<'/crawl/{id}', 'get'> = {}): AsyncGenerator<CrawlPageRow> {
    return paginate(
      this.http,
      () => this.get(id, query),
      (cursor) => this.get(id, { ...query, cursor }),
    );
  }
  /** GET /crawl/{id}/page: one page in full (either scheme, with or without a trailing slash). */
  page(id: string, url: string): Promise<CrawlPageRow> {
    return this.http.call('get', '/crawl/{id}/page', { params: { id }, query: { url } });
  }
  /** DELETE /crawl/{id}: stops the crawl. */
  cancel(id: string): Promise<CrawlEnvelope> {
    return this.http.call('delete', '/crawl/{id}', { params: { id } });
  }
  /** POST /crawl/{id}/keep: the crawl becomes a standing project with its run in place. */
  keep(id: string, body: Body<'/crawl/{id}/keep', 'post'> = {}) {
    return this.http.call('post', '/crawl/{id}/keep', { params: { id }, body });
  }
  /** Polls the crawl (no bodies) until it has ended; `onProgress` sees progress and credits. */
  wait(id: string, opts: WaitOptions<CrawlEnvelope> = {}): Promise<CrawlEnvelope> {
    return pollUntil(`crawl ${id}`, () => this.get(id, { formats: '', limit: 1 }), hasEnded, opts);
  }
}

/** The project-free verb map: the URLs a site declares in its sitemaps (POST /map and its job). */
export class MapJobs {
  constructor(private readonly http: HttpClient) {}

  /** POST /map: 200 when the sitemap tree resolved within `timeout`, else 202 (poll). */
  start(body: Body<'/map', 'post'>, opts: RequestOptions = {}): Promise<ApiResponse<MapEnvelope>> {
    return this.http.callWithResponse('post', '/map', { body, ...opts });
  }
  /** GET /map/{id}. */
  get(id: string, query: Query<'/map/{id}', 'get'> = {}): Promise<MapEnvelope> {
    return this.http.call('get', '/map/{id}', { params: { id }, query });
  }
  /** Every URL of a map, following `next`. */
  rows(id: string, query: Query<'/map/{id}', 'get'> = {}) {
    return paginate(
      this.http,
      () => this.get(id, query),
      (cursor) => this.get(id, { ...query, cursor }),
    );
  }
  /** Polls the map until it has ended. */
  wait(id: string, opts: WaitOptions<MapEnvelope> = {}): Promise<MapEnvelope> {
    return pollUntil(`map ${id}`, () => this.get(id, { limit: 1 }), hasEnded, opts);
  }
}

/** The playground: one URL read with every body kept and the evidence of its verdict. */
export class Playground {
  constructor(private readonly http: HttpClient) {}

  /** POST /playground/extract (202 with the id). */
  extract(body: Body<'/playground/extract', 'post'>) {
    return this.http.call('post', '/playground/extract', { body });
  }
  /** GET /playground/{id}; `wait` (seconds, up to 60) waits for the result. */
  get(id: string, query: Query<'/playground/{id}', 'get'> = {}) {
    return this.http.call('get', '/playground/{id}', { params: { id }, query });
  }
  /** GET /playground/{id}/screenshot: the JPEG (the Response, body unread). */
  screenshot(id: string): Promise<Response> {
    return this.http.stream('get', '/playground/{id}/screenshot', { params: { id } });
  }
}
