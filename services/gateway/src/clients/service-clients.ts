import {
  billingV1,
  browserPoolV1,
  crawlPagesV1,
  crawlV1,
  diffV1,
  exportV1,
  mapV1,
  scrapeV1,
} from '@tidemark/contracts';
import { connectClient } from '@tidemark/rpc';
import type { Config } from '../config.js';
import { DeliveryClient } from './delivery.client.js';

/**
 * The deadline of a read whose answer carries page rows with their bodies (up to ~32 MB an
 * answer): the callee reads them from the scrape service with 30 s of its own (the crawl's
 * GetPageRows), so the gateway's call must outlast that, not cut it at the default 5 s (a heavy
 * page of rows answered 503 on a busy machine while the read behind it was still in time).
 */
export const ROWS_DEADLINE_MS = 35_000;

/** Answers that can pass gRPC's default 4 MB message. */
const BIG_MESSAGES = { 'grpc.max_receive_message_length': 64 * 1024 * 1024 };

/**
 * Every service the gateway calls, connected one way: the generated client of each callee's
 * proto through `connectClient` (deadlines, trace context, errors as ApiErrors). Routes take the
 * client of the service they forward to; mappers/ turn its answers into REST bodies.
 */
export const connectServiceClients = (cfg: Config) => {
  const clients = {
    billing: connectClient(billingV1.BillingServiceClient, cfg.BILLING_GRPC_URL, 'billing'),
    // A page read in full (raw and clean html of a body up to SCRAPE_MAX_BODY_BYTES, its markdown
    // and text) passes 4 MB: a one-URL scrape of a 6 MB page answered 500.
    scrape: connectClient(scrapeV1.ScrapeServiceClient, cfg.SCRAPE_GRPC_URL, 'scrape', BIG_MESSAGES),
    browserPool: connectClient(browserPoolV1.BrowserPoolServiceClient, cfg.BROWSER_POOL_GRPC_URL, 'browser pool'),
    // A page of a crawl's rows with their bodies (up to 32 MB of them) passes 4 MB.
    crawl: connectClient(crawlV1.CrawlServiceClient, cfg.CRAWL_GRPC_URL, 'crawl', BIG_MESSAGES),
    // A page in full (raw html, screenshot) can pass 4 MB.
    crawlPages: connectClient(crawlPagesV1.PagesServiceClient, cfg.CRAWL_GRPC_URL, 'crawl', BIG_MESSAGES),
    // A change record lists every page that changed (a large run's can pass 4 MB).
    diff: connectClient(diffV1.DiffServiceClient, cfg.DIFF_GRPC_URL, 'diff', BIG_MESSAGES),
    exporter: connectClient(exportV1.ExportServiceClient, cfg.EXPORT_GRPC_URL, 'export'),
    // A finished map answers with every row (up to 50,000, about 10 MB).
    map: connectClient(mapV1.MapServiceClient, cfg.MAP_GRPC_URL, 'map', BIG_MESSAGES),
    // Delivery's calls have deadlines of their own (a connection test waits on the model endpoint).
    delivery: new DeliveryClient(cfg.DELIVERY_GRPC_URL),
  };
  return { ...clients, close: () => Object.values(clients).forEach((c) => c.close()) };
};
