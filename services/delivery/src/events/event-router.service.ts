import type { ReceivedEvent } from '@tidemark/bus';
import {
  type Digest,
  PROJECT_EVENT_KINDS,
  type CrawlJobEvent,
  type ProjectEventKind,
  type RunFinishedEvent,
} from '@tidemark/contracts';
import { newId, type Delivery } from '@tidemark/db';
import { NotFoundError } from '@tidemark/errors';
import type { Logger } from '@tidemark/telemetry';
import { chatBody, chatServiceOf, type ChatNotice } from '../chat/chat-message.js';
import { SecretBox } from '@tidemark/secret-box';
import type { DigestService } from '../digest/digest.service.js';
import type { DeliveryRepository, NewDelivery } from '../repositories/delivery.repository.js';
import type { NotificationRepository } from '../repositories/notification.repository.js';
import type { ProjectSource, SourceRepository } from '../repositories/source.repository.js';
import { noticeText, runNotice, siteNotice, somethingToReport, type RunOutcome } from './notices.js';

const CRAWL_EVENTS = new Set(['crawl.started', 'crawl.page', 'crawl.completed', 'crawl.failed']);
const SCRAPE_EVENTS = new Set(['batch.finished', 'scrape.completed', 'scrape.failed']);
const PROJECT_EVENTS = new Set<string>(PROJECT_EVENT_KINDS);
const SITE_EVENTS = new Set(['site.failing', 'site.recovered']);

export const hostOf = (url: string): string => new URL(url).host.toLowerCase();

/** An event as its message body starts: `{id, event, createdAt, ts, ...}`. */
const envelope = (eventId: string, event: string, at: Date) => ({
  id: eventId,
  event,
  createdAt: at.toISOString(),
  ts: Math.floor(at.getTime() / 1000),
});

/** Where e-mail goes when a mail host is configured. */
export interface MailRoute {
  host: string;
}

/**
 * Turns an event into deliveries: a job webhook for the crawl or batch that asked for one; the
 * project's webhook (webhook_url, for the kinds in webhook_events), chat channel (chat_url: a
 * run with something to report, site.failing, site.recovered) and the run e-mail or, without a
 * mail host, the members' notifications. Deliveries go on the durable schedule; the same event
 * handled twice adds nothing (they are keyed by event and receiver).
 */
export class EventRouter {
  constructor(
    private readonly deps: {
      sources: SourceRepository;
      deliveries: DeliveryRepository;
      notifications: NotificationRepository;
      digests: DigestService;
      box: SecretBox;
      mail: MailRoute | null;
      /** Called when deliveries were added, so the dispatcher looks now. */
      onQueued: () => void;
      /** A digest was written: the diff service keeps it on the run's change record. */
      onDigest: (workspaceId: string, runId: string, digest: Digest) => Promise<void>;
      logger: Logger;
    },
  ) {}

  async handle(e: ReceivedEvent): Promise<void> {
    if (CRAWL_EVENTS.has(e.kind)) return this.crawlEvent(e);
    if (SCRAPE_EVENTS.has(e.kind)) return this.scrapeEvent(e);
    if (PROJECT_EVENTS.has(e.kind)) return this.projectEvent(e);
  }

  /** A crawl's webhook gets the kinds its `events` names, with `metadata` echoed. */
  private async crawlEvent(e: ReceivedEvent): Promise<void> {
    const { webhook, ...data } = e.data as CrawlJobEvent;
    if (!webhook || !webhook.events.includes(e.kind)) return;
    const eventId = newId('evt');
    const body = {
      ...envelope(eventId, e.kind, e.at),
      job: { id: data.jobId, kind: 'crawl' },
      data,
      metadata: webhook.metadata,
    };
    await this.jobWebhook(e, data.jobId, webhook.url, eventId, body);
  }

  /** A batch's webhook_url gets batch.finished and the scrape's end. */
  private async scrapeEvent(e: ReceivedEvent): Promise<void> {
    const { webhookUrl, ...data } = e.data as { webhookUrl: string | null; jobId: string };
    if (!webhookUrl) return;
    const eventId = newId('evt');
    const body = { ...envelope(eventId, e.kind, e.at), job: { id: data.jobId, kind: 'scrape' }, data };
    await this.jobWebhook(e, data.jobId, webhookUrl, eventId, body);
  }

  private async jobWebhook(e: ReceivedEvent, jobId: string, url: string, eventId: string, body: object) {
    const job = await this.deps.sources.job(e.workspaceId, jobId);
    if (!job?.secret) {
      this.deps.logger.warn({ jobId, event: e.kind }, 'job webhook without a job secret; not sent');
      return;
    }
    await this.queue([
      {
        workspaceId: e.workspaceId,
        projectId: null,
        runId: job.runId,
        jobId,
        eventId,
        eventKey: e.key,
        event: e.kind,
        channel: 'webhook',
        service: null,
        url,
        host: hostOf(url),
        body: JSON.stringify(body),
        // The job's secret travels sealed with the delivery: the job may be discarded first.
        // Scrape and crawl store it sealed; a job written before they did is sealed here.
        secret: SecretBox.isSealed(job.secret) ? job.secret : this.deps.box.seal(job.secret),
        test: false,
      },
    ]);
  }

  private async projectEvent(e: ReceivedEvent): Promise<void> {
    const raw = e.data as { projectId: string; runId?: string | null } & Record<string, unknown>;
    const project = await this.deps.sources.project(e.workspaceId, raw.projectId);
    if (!project) return;
    const out = project.config.output;
    const kind = e.kind as ProjectEventKind;
    if (kind === 'page.changed' && raw.kind === 'modified') {
      const words = Number(raw.wordsAdded ?? 0) + Number(raw.wordsRemoved ?? 0);
      // A modified page is reported only when its edit reaches notify_min_words.
      if (words < out.notify_min_words) return;
    }
    let data: Record<string, unknown> = raw;
    let notice: ChatNotice | null = null;
    if (kind === 'run.finished') {
      data = await this.withDigest(project, raw as unknown as RunFinishedEvent);
      const run = data as unknown as RunOutcome;
      if (somethingToReport(run)) notice = runNotice(project, run);
    } else if (SITE_EVENTS.has(kind)) {
      notice = siteNotice(project, kind as 'site.failing' | 'site.recovered', (raw.reason as string | null) ?? null);
    }
    await this.routeProjectEvent({
      project,
      kind,
      eventKey: e.key,
      at: e.at,
      data,
      notice,
      webhook: out.webhook_events.includes(kind),
      test: false,
    });
  }

  /**
   * The test message of POST /projects/{id}/webhooks/test: run.finished with `test: true`, to
   * the webhook (whatever webhook_events says) and the chat channel; never mailed.
   */
  async sendTest(project: ProjectSource): Promise<Delivery[]> {
    const data = {
      projectId: project.id,
      runId: null,
      status: 'done',
      pages: 0,
      counts: { added: 0, removed: 0, modified: 0 },
      coverage: null,
      stop: null,
      digest: null,
      test: true,
    };
    return this.routeProjectEvent({
      project,
      kind: 'run.finished',
      eventKey: `test:${newId('tst')}`,
      at: new Date(),
      data,
      notice: runNotice(project, { ...data, test: true }),
      webhook: true,
      test: true,
    });
  }

  private async routeProjectEvent(r: {
    project: ProjectSource;
    kind: ProjectEventKind;
    eventKey: string;
    at: Date;
    data: Record<string, unknown>;
    /** Set when the event is news for people: chat, e-mail, notifications. */
    notice: ChatNotice | null;
    /** Whether the webhook wants this kind. */
    webhook: boolean;
    test: boolean;
  }): Promise<Delivery[]> {
    const { project } = r;
    const out = project.config.output;
    const runId = typeof r.data.runId === 'string' ? r.data.runId : null;
    // The digest's input is not part of the message; project and run sit at the top level.
    const { changes: _changes, projectId: _projectId, runId: _runId, ...data } = r.data;
    const eventId = newId('evt');
    const common = {
      workspaceId: project.workspaceId,
      projectId: project.id,
      runId,
      jobId: null,
      eventId,
      eventKey: r.eventKey,
      event: r.kind,
      secret: null,
      test: r.test,
    };
    const rows: NewDelivery[] = [];
    if (out.webhook_url && r.webhook) {
      const body = {
        ...envelope(eventId, r.kind, r.at),
        project: { id: project.id, host: project.host },
        run: runId ? { id: runId } : null,
        ...(r.test ? { test: true } : {}),
        data,
      };
      rows.push({
        ...common,
        channel: 'webhook',
        service: null,
        url: out.webhook_url,
        host: hostOf(out.webhook_url),
        body: JSON.stringify(body),
      });
    }
    if (out.chat_url && r.notice) {
      const service = chatServiceOf(out.chat_url);
      rows.push({
        ...common,
        channel: 'chat',
        service,
        url: out.chat_url,
        host: hostOf(out.chat_url),
        body: JSON.stringify(chatBody(service, r.notice)),
      });
    }
    if (r.notice && !r.test)
      rows.push(...(await this.tellMembers(r.project, r.kind, r.eventKey, runId, r.notice, data)));
    return this.queue(rows);
  }

  /** The run e-mail to every member when a mail host is configured; else a notification each. */
  private async tellMembers(
    project: ProjectSource,
    kind: ProjectEventKind,
    eventKey: string,
    runId: string | null,
    notice: ChatNotice,
    data: Record<string, unknown>,
  ): Promise<NewDelivery[]> {
    const members = await this.deps.sources.recipients(project.workspaceId);
    const text = noticeText(notice);
    if (!this.deps.mail) {
      await this.deps.notifications.add(
        members.map((m) => ({
          workspaceId: project.workspaceId,
          userId: m.userId,
          kind: kind === 'run.finished' ? 'run' : 'monitor',
          event: kind,
          eventKey,
          projectId: project.id,
          runId,
          title: notice.title,
          body: text,
          data: data as object,
        })),
      );
      return [];
    }
    const eventId = newId('evt');
    return members.map((m) => ({
      workspaceId: project.workspaceId,
      projectId: project.id,
      runId,
      jobId: null,
      eventId,
      eventKey,
      event: kind,
      channel: 'email' as const,
      service: null,
      url: `mailto:${m.email}`,
      host: this.deps.mail!.host,
      body: JSON.stringify({ to: m.email, subject: `[Tidemark] ${notice.title}`, text }),
      secret: null,
      test: false,
    }));
  }

  /**
   * run.finished with change_digest configured and no digest yet: the model writes one from the
   * event's `changes`. Without change_digest (or with nothing to report) data.digest is null.
   */
  private async withDigest(project: ProjectSource, run: RunFinishedEvent): Promise<Record<string, unknown>> {
    if (run.digest !== undefined) return run;
    const cfg = project.config.output.change_digest;
    if (!cfg || run.status !== 'done' || !somethingToReport(run)) return { ...run, digest: null };
    try {
      const { digest } = await this.deps.digests.write({
        workspaceId: project.workspaceId,
        connectionId: cfg.connection_id,
        focus: cfg.focus,
        projectId: project.id,
        runId: run.runId,
        counts: run.counts,
        changes: run.changes ?? [],
      });
      if (digest) await this.deps.onDigest(project.workspaceId, run.runId, digest);
      return { ...run, digest };
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      this.deps.logger.warn({ projectId: project.id, connectionId: cfg.connection_id }, 'digest connection not found');
      return { ...run, digest: null };
    }
  }

  private async queue(rows: NewDelivery[]): Promise<Delivery[]> {
    const added = await this.deps.deliveries.add(rows);
    if (added.length) this.deps.onQueued();
    return added;
  }
}
