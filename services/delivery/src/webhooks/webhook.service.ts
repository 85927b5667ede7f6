import {
  maskSecretUrl,
  type ChannelHealth,
  type ChatService,
  type DeliveryView,
  type ProjectWebhooksView,
  type WebhookChannelView,
} from '@tidemark/contracts';
import type { Delivery, DeliveryAttempt } from '@tidemark/db';
import { ConflictError, NotFoundError } from '@tidemark/errors';
import { chatServiceOf } from '../chat/chat-message.js';
import type { EventRouter } from '../events/event-router.service.js';
import {
  emptyCounts,
  type DeliveryRepository,
  type LatestDelivery,
  type StatusCounts,
} from '../repositories/delivery.repository.js';
import type { ProjectSource, SourceRepository } from '../repositories/source.repository.js';
import type { WebhookSecrets } from './webhook-secrets.js';

/** The kinds a chat channel posts. */
const CHAT_EVENTS = ['run.finished', 'site.failing', 'site.recovered'];
const RECENT_DELIVERIES = 20;

/** Who asks: the workspace and the key's project allow-list (empty: all). */
export interface Caller {
  workspaceId: string;
  projects: string[];
}

export const presentDelivery = (d: Delivery & { log: DeliveryAttempt[] }): DeliveryView => ({
  id: d.id,
  event: d.event,
  eventId: d.eventId,
  channel: d.channel as 'webhook' | 'chat',
  service: (d.service as ChatService | null) ?? null,
  url: d.channel === 'chat' ? maskSecretUrl(d.url) : d.url,
  projectId: d.projectId,
  runId: d.runId,
  jobId: d.jobId,
  test: d.test,
  status: d.status as DeliveryView['status'],
  attempts: d.attempts,
  lastStatus: d.lastStatus,
  lastError: d.lastError,
  nextAt: d.status === 'pending' && d.nextAt ? d.nextAt.toISOString() : null,
  deliveredAt: d.deliveredAt?.toISOString() ?? null,
  createdAt: d.createdAt.toISOString(),
  log: d.log.map((a) => ({
    attempt: a.number,
    at: a.at.toISOString(),
    status: a.httpStatus,
    error: a.error,
    durationMs: a.durationMs,
    outcome: a.outcome as DeliveryView['log'][number]['outcome'],
    manual: a.manual,
  })),
});

/** A channel's health from its latest delivery and the last week's counts. */
export const healthOf = (latest: LatestDelivery | undefined, recent: StatusCounts): ChannelHealth => ({
  status: !latest
    ? 'idle'
    : latest.status === 'delivered'
      ? 'healthy'
      : latest.status === 'paused'
        ? 'paused'
        : latest.status === 'failed' || latest.lastError
          ? 'failing'
          : 'healthy',
  lastAttemptAt: latest?.lastAttemptAt ? new Date(latest.lastAttemptAt).toISOString() : null,
  lastStatus: latest?.lastStatus ?? null,
  lastError: latest?.lastError ?? null,
  recent,
});

/** What the webhook routes of the API ask of delivery. */
export class WebhookService {
  constructor(
    private readonly sources: SourceRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly secrets: WebhookSecrets,
    private readonly router: EventRouter,
    private readonly onQueued: () => void,
  ) {}

  /** Every project's webhook and chat channel with its health, paged by project. */
  async listChannels(
    caller: Caller,
    opts: { before?: string; take: number },
  ): Promise<{ data: WebhookChannelView[]; more: boolean }> {
    const rows = await this.sources.projectsWithChannels(caller.workspaceId, {
      before: opts.before,
      take: opts.take + 1,
      only: caller.projects,
    });
    const projects = rows.slice(0, opts.take);
    const health = await this.health(
      caller.workspaceId,
      projects.map((p) => p.id),
    );
    const data: WebhookChannelView[] = [];
    for (const p of projects) {
      const out = p.config.output;
      if (out.webhook_url)
        data.push({
          projectId: p.id,
          projectName: p.name,
          kind: 'webhook',
          service: null,
          url: out.webhook_url,
          events: out.webhook_events,
          health: health(p.id, 'webhook'),
        });
      if (out.chat_url)
        data.push({
          projectId: p.id,
          projectName: p.name,
          kind: 'chat',
          service: chatServiceOf(out.chat_url),
          url: maskSecretUrl(out.chat_url),
          events: CHAT_EVENTS,
          health: health(p.id, 'chat'),
        });
    }
    return { data, more: rows.length > opts.take };
  }

  /** One project's webhook: the secret only when `revealSecret` (admin), which may mint it. */
  async projectWebhooks(caller: Caller, projectId: string, revealSecret: boolean): Promise<ProjectWebhooksView> {
    const project = await this.visibleProject(caller, projectId);
    const out = project.config.output;
    const health = await this.health(caller.workspaceId, [project.id]);
    const recent = await this.deliveries.list({
      workspaceId: caller.workspaceId,
      projectId: project.id,
      channels: ['webhook', 'chat'],
      take: RECENT_DELIVERIES,
    });
    return {
      projectId: project.id,
      url: out.webhook_url,
      events: out.webhook_events,
      ...(revealSecret
        ? { secret: await this.secrets.current(caller.workspaceId, project.id) }
        : { secretHidden: true as const }),
      health: health(project.id, 'webhook'),
      chat: out.chat_url
        ? { url: maskSecretUrl(out.chat_url), service: chatServiceOf(out.chat_url), health: health(project.id, 'chat') }
        : null,
      deliveries: recent.map(presentDelivery),
    };
  }

  async sendTest(caller: Caller, projectId: string): Promise<DeliveryView[]> {
    const project = await this.visibleProject(caller, projectId);
    const out = project.config.output;
    if (!out.webhook_url && !out.chat_url)
      throw new ConflictError('the project has no webhook_url or chat_url to send a test to');
    const added = await this.router.sendTest(project);
    return added.map((d) => presentDelivery({ ...d, log: [] }));
  }

  async rotateSecret(caller: Caller, projectId: string): Promise<string> {
    const project = await this.visibleProject(caller, projectId);
    return this.secrets.rotate(caller.workspaceId, project.id);
  }

  async listDeliveries(
    caller: Caller,
    opts: { projectId?: string; runId?: string; before?: string; take: number },
  ): Promise<{ data: DeliveryView[]; more: boolean }> {
    // A filter naming another workspace's project or run is 404, like the thing itself.
    if (opts.projectId) await this.visibleProject(caller, opts.projectId, false);
    if (opts.runId && !(await this.sources.runExists(caller.workspaceId, opts.runId))) throw new NotFoundError('run');
    const rows = await this.deliveries.list({
      workspaceId: caller.workspaceId,
      projectId: opts.projectId,
      runId: opts.runId,
      onlyProjects: caller.projects,
      channels: ['webhook', 'chat'],
      before: opts.before,
      take: opts.take + 1,
    });
    return { data: rows.slice(0, opts.take).map(presentDelivery), more: rows.length > opts.take };
  }

  async redeliver(caller: Caller, deliveryId: string): Promise<DeliveryView> {
    const d = await this.deliveries.redeliver(caller.workspaceId, deliveryId, caller.projects);
    if (!d) throw new NotFoundError('delivery');
    this.onQueued();
    return presentDelivery(d);
  }

  private async visibleProject(caller: Caller, projectId: string, standing = true): Promise<ProjectSource> {
    const visible = caller.projects.length === 0 || caller.projects.includes(projectId);
    const project = visible ? await this.sources.project(caller.workspaceId, projectId, { standing }) : null;
    if (!project) throw new NotFoundError('project');
    return project;
  }

  private async health(workspaceId: string, projectIds: string[]) {
    const [latest, counts] = await Promise.all([
      this.deliveries.latestByChannel(workspaceId, projectIds),
      this.deliveries.recentCounts(workspaceId, projectIds),
    ]);
    return (projectId: string, channel: 'webhook' | 'chat'): ChannelHealth => {
      const recent = emptyCounts();
      for (const c of counts)
        if (c.projectId === projectId && c.channel === channel && c.status in recent)
          recent[c.status as keyof StatusCounts] = c.n;
      return healthOf(
        latest.find((l) => l.projectId === projectId && l.channel === channel),
        recent,
      );
    };
  }
}
