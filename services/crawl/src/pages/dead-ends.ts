import { crawlRequestSchema } from '@tidemark/contracts';
import { resolveCrawl } from '../crawl/crawl-options.js';
import { normalizeUrl } from '../frontier/normalize-url.js';
import { CrawlScope } from '../frontier/scope.js';
import type { CrawlJob } from '../repositories/crawl-job.repository.js';
import type { FrontierRepository } from '../repositories/frontier.repository.js';
import type { StoredPagesRepository } from './stored-pages.repository.js';

export interface DeadEndSet {
  /** Positions of the read pages with no link to a page in scope. */
  positions: number[];
  /** Read pages whose links were not stored: not judged. */
  unscanned: number;
}

const READ_BATCH = 200;
const CACHED_RUNS = 32;

/**
 * Dead ends: read pages (ok, thin, cached) none of whose links, other than to themselves,
 * leads to a URL in the run's scope (its host rules and include/exclude globs; depth is not
 * considered, since a link past max_depth still leads somewhere on the site). Robots-forbidden
 * targets count: they are pages of the site. Most pages are settled without reading links: no
 * links at all is a dead end, and a page a URL was first found on had an in-scope link.
 */
export class DeadEnds {
  /** A finished run never changes: its set is computed once per process. */
  private readonly cache = new Map<string, DeadEndSet>();

  constructor(
    private readonly frontier: FrontierRepository,
    private readonly stored: StoredPagesRepository,
  ) {}

  async of(job: CrawlJob): Promise<DeadEndSet> {
    const known = this.cache.get(job.runId);
    if (known) return known;
    const request = crawlRequestSchema.parse(job.request);
    const scope = new CrawlScope(request.url, { ...resolveCrawl(request).config.scope, max_depth: null });
    const positions: number[] = [];
    const toRead: { position: number; urlKey: string }[] = [];
    for (const page of await this.frontier.readPages(job.runId)) {
      if (page.outLinks === 0) positions.push(page.position);
      else if (!page.referer) toRead.push(page);
    }
    let unscanned = 0;
    for (let i = 0; i < toRead.length; i += READ_BATCH) {
      const batch = toRead.slice(i, i + READ_BATCH);
      const links = await this.stored.linksAt(
        job.id,
        batch.map((p) => p.position),
      );
      for (const page of batch) {
        const list = links.get(page.position);
        if (!list) unscanned += 1;
        else if (!list.some((l) => inScope(scope, l, page.urlKey))) positions.push(page.position);
      }
    }
    const set = { positions: positions.sort((a, b) => a - b), unscanned };
    if (!['queued', 'running'].includes(job.status)) {
      if (this.cache.size >= CACHED_RUNS) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(job.runId, set);
    }
    return set;
  }
}

const inScope = (scope: CrawlScope, link: string, self: string): boolean => {
  const key = normalizeUrl(link);
  return key !== null && key !== self && scope.check(new URL(key), 0) === 'in';
};
