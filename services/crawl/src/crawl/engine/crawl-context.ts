import { crawlRequestSchema, type CrawlRequest } from '@tidemark/contracts';
import { robotsFromResponse, type RobotsRules } from '@tidemark/robots';
import { CrawlScope } from '../../frontier/scope.js';
import type { CrawlJob, RobotsRead } from '../../repositories/crawl-job.repository.js';
import { resolveCrawl, type CrawlOptions } from '../crawl-options.js';

/** Everything a worker derives from a crawl's stored request, built once per crawl. */
export interface CrawlContext {
  request: CrawlRequest;
  options: CrawlOptions;
  scope: CrawlScope;
  robots: RobotsRules | null;
  delayMs: number;
}

/** The contexts of the crawls this worker steps, kept while they run (at most 512). */
export class CrawlContexts {
  private readonly known = new Map<string, CrawlContext>();

  constructor(private readonly userAgent: string) {}

  /** The crawl's context when this worker has built it. */
  cached(jobId: string): CrawlContext | undefined {
    return this.known.get(jobId);
  }

  /** The crawl's context, built (again) from its request and the robots.txt it read at its start. */
  of(job: CrawlJob, robots: RobotsRead): CrawlContext {
    const request = crawlRequestSchema.parse(job.request);
    const options = resolveCrawl(request);
    const rules = options.config.scope.respect_robots
      ? robotsFromResponse(robots.robotsStatus || null, robots.robotsTxt, this.userAgent)
      : null;
    const crawlDelay = rules?.crawlDelaySeconds ?? 0;
    const ctx: CrawlContext = {
      request,
      options,
      scope: new CrawlScope(request.url, options.config.scope),
      robots: rules,
      delayMs: Math.max(options.config.fetch.delay, crawlDelay) * 1000,
    };
    if (this.known.size >= 512) this.known.delete(this.known.keys().next().value!);
    this.known.set(job.id, ctx);
    return ctx;
  }

  forget(jobId: string): void {
    this.known.delete(jobId);
  }
}
