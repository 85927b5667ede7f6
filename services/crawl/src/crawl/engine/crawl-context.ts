import { crawlRequestSchema, type CrawlRequest } from '@tidemark/contracts';
import { robotsFromResponse, type RobotsRules } from '@tidemark/robots';
import { CrawlScope } from '../../frontier/scope.js';
import type { CrawlJob, CrawlState } from '../../repositories/crawl-job.repository.js';
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

  /** The crawl's context; `robots` given (its start), built again from that robots.txt. */
  of(job: CrawlJob, robots?: { robotsTxt: string; robotsStatus: number }): CrawlContext {
    const known = this.known.get(job.id);
    if (known && !robots) return known;
    const request = crawlRequestSchema.parse(job.request);
    const options = resolveCrawl(request);
    const state = job.result as unknown as CrawlState;
    const src = robots ?? { robotsTxt: state.robotsTxt, robotsStatus: state.robotsStatus };
    const rules = options.config.scope.respect_robots
      ? robotsFromResponse(src.robotsStatus || null, src.robotsTxt, this.userAgent)
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
