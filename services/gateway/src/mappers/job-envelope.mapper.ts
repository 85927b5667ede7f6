// pageV1.JobEnvelope (ScrapeService ScrapeNow, StartBatch, GetJob, ListJobs, CancelJob) → the job
// envelope of /scrape and /playground; crawlV1.CrawlEnvelope (CrawlService StartCrawl, GetCrawl,
// CancelCrawl) and pageV1.PageRow (GetCrawlPage) → /crawl. The page row's codec is shared with
// the services that compose rows (libs/contracts/src/page-rows.ts); the REST schemas are
// jobEnvelopeSchema and crawlEnvelopeSchema there.
import {
  crawlPageRowFromProto,
  jobEnvelopeFromProto,
  pageRowFromProto,
  type CrawlEnvelope,
  type CrawlPageRow,
  type crawlV1,
  type JobEnvelope,
  type pageV1,
} from '@tidemark/contracts';
import { required } from './proto-values.js';

export const jobEnvelopeToRest = (envelope: pageV1.JobEnvelope | undefined): JobEnvelope =>
  jobEnvelopeFromProto(required(envelope, 'envelope'), pageRowFromProto);

export const crawlEnvelopeToRest = (envelope: crawlV1.CrawlEnvelope | undefined): CrawlEnvelope => {
  const crawl = required(envelope, 'envelope');
  return {
    ...jobEnvelopeFromProto(required(crawl.job, 'envelope.job'), crawlPageRowFromProto),
    projectId: crawl.projectId,
    runId: crawl.runId,
  };
};

export const crawlPageRowToRest = (row: pageV1.PageRow | undefined): CrawlPageRow =>
  crawlPageRowFromProto(required(row, 'row'));
