import { z } from 'zod';
import { canSeeProject } from '../http/auth.js';
import { defineRoute } from '../http/route.js';
import type { MonitorService } from '../services/monitor.service.js';
import type { UsageService } from '../services/usage.service.js';

const int = () => z.number().int();
const totals = {
  pages: int().describe('pages fetched (not robots-refused rows, not copies served from store)'),
  browserPages: int().describe('of those, read by the browser tier'),
  blockedPages: int().describe('of those, refused by the site'),
  pageCredits: int().describe('what those pages cost'),
  creditsUsed: int().describe('every credit charged: pages, sitemap files, ...'),
  creditsGranted: int(),
  usedByReason: z.record(z.string(), int()).describe('credits used by what they paid for (page, map, ...)'),
};

export const usageSchema = z
  .object({
    days: z
      .array(z.object({ day: z.string().describe('YYYY-MM-DD, UTC'), ...totals }))
      .describe('the last 30 UTC days, oldest first'),
    month: z.object({ start: z.string().describe('first day of this UTC month'), ...totals }),
    credits: z.object({ granted: int(), used: int(), remaining: int() }).describe('since the workspace began'),
    plan: z.string(),
  })
  .meta({ id: 'Usage' });

const laneSchema = z.object({
  durable: z.string().describe('the lane (a durable JetStream consumer of the WORK stream)'),
  subject: z.string(),
  pending: int().describe('messages waiting'),
  inFlight: int().describe('handed to a worker, not acked yet'),
  redelivered: int(),
  waitingWorkers: int().describe('idle workers waiting for a message'),
});

export const monitorSchema = z
  .object({
    work: z
      .array(
        z.object({
          id: z.string(),
          kind: z.string().describe('run, crawl, scrape or playground'),
          status: z.enum(['queued', 'running']),
          projectId: z.string().nullable(),
          projectName: z.string().nullable(),
          runId: z.string().nullable(),
          progress: z.object({ done: int(), total: int(), queued: int() }),
          creditsUsed: int(),
          createdAt: z.string(),
        }),
      )
      .describe("the workspace's runs, crawls and scrape jobs queued or running, oldest first"),
    lanes: z.array(laneSchema).describe("the deployment's work lanes"),
    workers: z
      .array(
        z.object({
          service: z.string(),
          instance: z.string().describe('host, process and a tag: one per connection to the bus'),
          host: z.string(),
          pid: int(),
          startedAt: z.string(),
          consumers: z.array(
            z.object({ durable: z.string(), subject: z.string(), inFlight: int(), concurrency: int() }),
          ),
        }),
      )
      .describe('the processes that answered on the bus, with the lanes they take and the work they hold'),
    browserPool: z.union([
      z.object({
        available: z.literal(true),
        queued: int().describe('renders waiting for a tab'),
        tabsPerBrowser: int(),
        browsers: z.array(z.object({ id: int(), up: z.boolean(), inFlight: int(), renders: int(), idleLanes: int() })),
      }),
      z.object({ available: z.literal(false), reason: z.string() }),
    ]),
  })
  .meta({ id: 'Monitor' });

export const workspaceActivityRoutes = (usage: UsageService, monitor: MonitorService) => [
  defineRoute({
    method: 'get',
    path: '/me/usage',
    tag: 'Workspace',
    summary: 'Pages fetched and credits used per day for the last 30 days, and this month’s totals',
    scope: 'read',
    responses: { 200: { description: 'usage', schema: usageSchema } },
    handler: async ({ auth }) => ({ status: 200, body: await usage.usage(auth.workspaceId) }),
  }),
  defineRoute({
    method: 'get',
    path: '/me/monitor',
    tag: 'Workspace',
    summary: 'What is queued and running for the workspace, the work lanes, the workers and the browser pool',
    description:
      'Lanes are read from JetStream consumer info; workers are the processes that answer on the bus within a moment; the browser pool answers for its tabs. A key limited to some projects sees only their runs.',
    scope: 'read',
    responses: { 200: { description: 'the monitor', schema: monitorSchema } },
    handler: async ({ auth }) => ({
      status: 200,
      body: await monitor.monitor(auth.workspaceId, (projectId) => canSeeProject(auth, projectId)),
    }),
  }),
];
