import type { Bus } from '@tidemark/bus';
import * as scrape from '@tidemark/scrape';
import type { TestFleet } from './fleet.js';

/**
 * A scrape service beside a test fleet's (its settings, its billing and crawl services; gRPC on a
 * port of its own), built and not started: it writes jobs and publishes their pages, and takes
 * none until started.
 * `bus`: its bus instead of its own connection (one a test has closed, say).
 */
export const buildScrapeApp = (t: TestFleet, bus?: Bus): Promise<scrape.ScrapeApp> =>
  scrape.buildApp(
    scrape.loadConfig({
      ...process.env,
      ...t.env,
      BILLING_GRPC_URL: t.fleet.grpc.billing,
      CRAWL_GRPC_URL: t.fleet.grpc.crawl,
      SCRAPE_GRPC_LISTEN: '127.0.0.1:0',
    }),
    bus ? { bus } : {},
  );
