import type { Bus } from '@tidemark/bus';
import { crawlDoneSubject, type CrawlJobEvent } from '@tidemark/contracts';
import type { Logger } from '@tidemark/telemetry';
import type { CrawlJob, CrawlJobRepository } from '../../repositories/crawl-job.repository.js';
import type { FrontierRepository, Tx } from '../../repositories/frontier.repository.js';
import type { CrawlContexts } from './crawl-context.js';
import { stateOf, type CrawlEnd } from './crawl-state.js';

/** Core-NATS broadcast when a crawl ends (waiters of a run or a crawl listen to it). */

/**
 * What a crawl tells the world: crawl.started / page / completed / failed on EVENTS (delivery
 * turns them into job webhooks), the end broadcast, and a run's hand-over to diff.
 */
export class CrawlEvents {
  constructor(
    private readonly jobs: CrawlJobRepository,
    private readonly frontier: FrontierRepository,
    private readonly bus: Bus,
    private readonly contexts: CrawlContexts,
    private readonly logger: Logger,
  ) {}

  async started(job: CrawlJob, event: CrawlJobEvent): Promise<void> {
    await this.bus.publishEvent(job.workspaceId, 'crawl.started', event, { msgId: `${job.id}:crawl.started` });
  }

  /** crawl.page: the pages settled since the last message (inside the step's transaction). */
  async publishPages(tx: Tx, job: CrawlJob): Promise<CrawlJob> {
    const state = stateOf(job);
    const rows = await this.frontier.settledPage(job.runId, state.pageEventCursor ?? null, 1000, tx);
    if (!rows.length) return job;
    const last = rows.at(-1)!;
    const event: CrawlJobEvent = {
      ...this.jobEvent(job, job.progress as CrawlJobEvent['progress']),
      pages: rows.map((r) => ({ url: r.url, httpStatus: r.httpStatus, verdict: r.verdict, errorCode: r.errorCode })),
    };
    await this.bus.publishEvent(job.workspaceId, 'crawl.page', event, {
      msgId: `${job.id}:crawl.page:${last.position}`,
    });
    return this.jobs.update(tx, job, {
      state: {
        pagesSinceEvent: 0,
        lastPageEventAt: new Date().toISOString(),
        pageEventCursor: { at: last.doneAt!, position: last.position },
      },
    });
  }

  /** After the ending step committed: the end event (or diff's hand-over) and the broadcast. */
  async publishEnd(job: Pick<CrawlJob, 'workspaceId'>, end: CrawlEnd): Promise<void> {
    // A project run's end is told by run.finished once the diff service has compared it with
    // the run before (not by crawl.*): hand it over.
    if (end.job.kind === 'run') {
      await this.handToDiff(end.job);
      this.bus.broadcast(crawlDoneSubject(end.job.id), { jobId: end.job.id, status: end.job.status });
      this.contexts.forget(end.job.id);
      return;
    }
    // A crawl kept while it ran is its project's first run: it gets its change record too.
    if ((await this.jobs.projectOfRun(end.job.runId))?.ephemeral === false) await this.handToDiff(end.job);
    try {
      await this.bus.publishEvent(
        job.workspaceId,
        end.kind,
        this.jobEvent(end.job, end.job.progress as CrawlJobEvent['progress']),
        { msgId: `${end.job.id}:${end.kind}` },
      );
    } catch (err) {
      this.logger.error({ err, jobId: end.job.id }, 'crawl end event not published');
    }
    this.bus.broadcast(crawlDoneSubject(end.job.id), { jobId: end.job.id, status: end.job.status });
    this.contexts.forget(end.job.id);
  }

  /**
   * Asks diff for the run's change record (work.diff.compare, once per run: the message id
   * dedupes a keep racing the crawl's end). Logged, not thrown: the run has ended either way.
   */
  async handToDiff(job: Pick<CrawlJob, 'workspaceId' | 'runId'>): Promise<void> {
    try {
      await this.bus.publishWork(
        'work.diff.compare',
        { workspaceId: job.workspaceId, runId: job.runId },
        { msgId: `${job.runId}:compare` },
      );
    } catch (err) {
      this.logger.error({ err, runId: job.runId }, 'run not handed to diff');
    }
  }

  jobEvent(job: CrawlJob, progress: CrawlJobEvent['progress']): CrawlJobEvent {
    const request = job.request as { webhook?: CrawlJobEvent['webhook'] };
    return {
      jobId: job.id,
      status: job.status,
      progress,
      creditsUsed: job.creditsUsed,
      counts: job.counts as Record<string, number>,
      stop: job.stop,
      webhook: request.webhook
        ? {
            url: request.webhook.url,
            events: request.webhook.events ?? [],
            metadata: request.webhook.metadata ?? {},
          }
        : null,
    };
  }
}
