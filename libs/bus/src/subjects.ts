import {
  billingWelcomeMessage,
  crawlJobEvent,
  crawlPagesResultMessage,
  crawlStartMessage,
  diffCompareMessage,
  diffDigestMessage,
  mapJobEvent,
  mapRunMessage,
  pageChangedEvent,
  projectEvent,
  runFinishedEvent,
  scrapeCrawlLeaseMessage,
  scrapeCrawlPageMessage,
  scrapeJobEvent,
  scrapePageMessage,
  siteHealthEvent,
  workspaceCreatedEvent,
} from '@tidemark/contracts';
import type { z } from 'zod';

/**
 * Every subject of the fleet, bound to the schema of its body. Work subjects live on the WORK
 * stream (work-queue retention: each message is done once by one worker); events live on the
 * EVENTS stream as `events.<workspace>.<kind>` with the spec's event names as kinds.
 */
export const WORK_SUBJECTS = {
  'work.billing.welcome': billingWelcomeMessage,
  'work.scrape.page': scrapePageMessage,
  'work.scrape.crawl': scrapeCrawlPageMessage,
  'work.scrape.lease': scrapeCrawlLeaseMessage,
  'work.map.run': mapRunMessage,
  'work.crawl.start': crawlStartMessage,
  'work.crawl.pages': crawlPagesResultMessage,
  'work.diff.compare': diffCompareMessage,
  'work.diff.digest': diffDigestMessage,
} as const satisfies Record<`work.${string}`, z.ZodType>;

export const EVENT_KINDS = {
  'workspace.created': workspaceCreatedEvent,
  'batch.finished': scrapeJobEvent,
  'scrape.completed': scrapeJobEvent,
  'scrape.failed': scrapeJobEvent,
  'map.completed': mapJobEvent,
  'crawl.started': crawlJobEvent,
  'crawl.page': crawlJobEvent,
  'crawl.completed': crawlJobEvent,
  'crawl.failed': crawlJobEvent,
  // Project events (issue 5 publishes them; delivery sends them to webhooks, chat, mail).
  'run.finished': runFinishedEvent,
  'page.changed': pageChangedEvent,
  'page.blocked': projectEvent,
  'field.canonical': projectEvent,
  'site.failing': siteHealthEvent,
  'site.recovered': siteHealthEvent,
  'page.orphaned': projectEvent,
  'page.linked': projectEvent,
  'sitemap.added': projectEvent,
  'sitemap.removed': projectEvent,
  'sitemap.updated': projectEvent,
  'sitemap.file_added': projectEvent,
  'sitemap.file_removed': projectEvent,
} as const satisfies Record<string, z.ZodType>;

export type WorkSubject = keyof typeof WORK_SUBJECTS;
export type WorkMessage<S extends WorkSubject> = z.infer<(typeof WORK_SUBJECTS)[S]>;
export type EventKind = keyof typeof EVENT_KINDS;
export type EventData<K extends EventKind> = z.infer<(typeof EVENT_KINDS)[K]>;

export const STREAMS = {
  work: { name: 'WORK', subjects: 'work.>' },
  events: { name: 'EVENTS', subjects: 'events.>' },
} as const;

export const eventSubject = (workspaceId: string, kind: EventKind): string => `events.${workspaceId}.${kind}`;
