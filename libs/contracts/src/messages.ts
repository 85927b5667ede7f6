import { z } from 'zod';

/**
 * The bodies of NATS messages, one zod schema each. `libs/bus` binds them to subjects so a
 * publisher cannot send, and a consumer cannot accept, a message of the wrong shape.
 */
export const billingWelcomeMessage = z.object({
  workspaceId: z.string().min(1),
});
export type BillingWelcomeMessage = z.infer<typeof billingWelcomeMessage>;

export const workspaceCreatedEvent = z.object({
  workspaceId: z.string().min(1),
  name: z.string(),
  createdAt: z.string(),
});

/** One URL of a scrape job to fetch through the ladder. */
export const scrapePageMessage = z.object({
  jobId: z.string().min(1),
  workspaceId: z.string().min(1),
  position: z.number().int().min(0),
  url: z.string().url(),
});
export type ScrapePageMessage = z.infer<typeof scrapePageMessage>;

/** batch.finished, scrape.completed, scrape.failed: what a job webhook will carry. */
export const scrapeJobEvent = z.object({
  jobId: z.string(),
  status: z.string(),
  progress: z.object({ done: z.number(), total: z.number(), queued: z.number() }),
  creditsUsed: z.number(),
  counts: z.record(z.string(), z.number()),
  webhookUrl: z.string().nullable(),
});
