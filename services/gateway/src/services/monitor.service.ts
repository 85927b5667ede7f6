import type { Bus, BusMember, WorkLane } from '@tidemark/bus';
import type { browserPoolV1, crawlV1, scrapeV1 } from '@tidemark/contracts';
import type { RpcClient } from '@tidemark/rpc';
import type { Logger } from '@tidemark/telemetry';

export interface ActiveItem {
  id: string;
  kind: string;
  status: string;
  projectId: string | null;
  projectName: string | null;
  runId: string | null;
  progress: { done: number; total: number; queued: number };
  creditsUsed: number;
  createdAt: string;
}

export interface MonitorView {
  work: ActiveItem[];
  lanes: WorkLane[];
  workers: BusMember[];
  browserPool:
    | { available: true; queued: number; tabsPerBrowser: number; browsers: browserPoolV1.PoolBrowser[] }
    | { available: false; reason: string };
}

/** How long the view waits for every process to say what it is doing. */
const FLEET_WAIT_MS = 300;

/**
 * GET /v1/me/monitor: the workspace's runs and crawls (crawl service) and scrape jobs (scrape
 * service) going now, the deployment's work lanes from JetStream's consumer info, the processes
 * on the bus (each answers `fleet.status` with its service and the work it holds) and the
 * browser pool's tabs.
 */
export class MonitorService {
  constructor(
    private readonly crawl: RpcClient<crawlV1.CrawlServiceClient>,
    private readonly scrape: RpcClient<scrapeV1.ScrapeServiceClient>,
    private readonly browserPool: RpcClient<browserPoolV1.BrowserPoolServiceClient>,
    private readonly bus: Bus,
    private readonly logger: Logger,
  ) {}

  async monitor(workspaceId: string, canSee: (projectId: string) => boolean): Promise<MonitorView> {
    const [crawls, jobs, lanes, workers, pool] = await Promise.all([
      this.crawl.call('activeWork', { workspaceId, limit: 100 }),
      this.scrape.call('activeJobs', { workspaceId, limit: 100 }),
      this.bus.workLanes(),
      this.bus.fleetStatus(FLEET_WAIT_MS),
      this.browserPool.call('poolStatus', {}, 2000).catch((err: unknown) => {
        this.logger.debug({ err }, 'browser pool status unavailable');
        return null;
      }),
    ]);
    const work: ActiveItem[] = [
      ...crawls.items
        .filter((c) => canSee(c.projectId))
        .map((c) => ({
          id: c.id,
          kind: c.kind,
          status: c.status,
          projectId: c.projectId,
          projectName: c.projectName,
          runId: c.runId,
          progress: { done: c.done, total: c.total, queued: c.queued },
          creditsUsed: c.creditsUsed,
          createdAt: c.createdAt,
        })),
      ...jobs.jobs.map((j) => ({
        id: j.id,
        kind: j.kind,
        status: j.status,
        projectId: null,
        projectName: null,
        runId: null,
        progress: { done: j.done, total: j.total, queued: j.queued },
        creditsUsed: j.creditsUsed,
        createdAt: j.createdAt,
      })),
    ].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    return {
      work,
      lanes,
      workers,
      browserPool: pool
        ? { available: true, queued: pool.queued, tabsPerBrowser: pool.tabsPerBrowser, browsers: pool.browsers }
        : { available: false, reason: 'the browser pool did not answer (not deployed, or down)' },
    };
  }
}
