import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChatService } from '@tidemark/contracts';
import { chatServiceOf } from '../src/chat/chat-message.js';
import { DeliveryEnv } from './support/delivery-env.js';
import { Receiver, type Answer } from './support/receiver.js';

/**
 * What each chat service's incoming webhook documents it accepts, checked the way the service
 * would: a body it would refuse gets a 400 here too.
 */
const isStr = (v: unknown, max: number) => typeof v === 'string' && v.length > 0 && v.length <= max;
const SHAPES: Record<Exclude<ChatService, 'generic'>, (b: any) => string | null> = {
  // Slack: text (the fallback) and Block Kit blocks; section text or fields (≤ 10), header plain_text ≤ 150.
  slack: (b) => {
    if (!isStr(b.text, 40_000)) return 'text';
    for (const block of b.blocks ?? []) {
      if (block.type === 'header' && !(block.text?.type === 'plain_text' && isStr(block.text.text, 150)))
        return 'header';
      if (block.type === 'section') {
        const textOk = block.text && ['mrkdwn', 'plain_text'].includes(block.text.type) && isStr(block.text.text, 3000);
        const fieldsOk =
          Array.isArray(block.fields) &&
          block.fields.length <= 10 &&
          block.fields.every((f: any) => isStr(f.text, 2000));
        if (!textOk && !fieldsOk) return 'section';
      }
      if (!['header', 'section', 'divider', 'context'].includes(block.type)) return `block ${block.type}`;
    }
    return null;
  },
  // Teams (Workflows): a message whose attachment is an Adaptive Card.
  teams: (b) => {
    if (b.type !== 'message' || !Array.isArray(b.attachments) || b.attachments.length < 1) return 'message';
    const a = b.attachments[0];
    if (a.contentType !== 'application/vnd.microsoft.card.adaptive') return 'contentType';
    const card = a.content;
    if (card?.type !== 'AdaptiveCard' || typeof card.version !== 'string' || !Array.isArray(card.body)) return 'card';
    for (const el of card.body) {
      if (el.type === 'TextBlock' && !isStr(el.text, 100_000)) return 'TextBlock';
      if (
        el.type === 'FactSet' &&
        !el.facts.every((f: any) => typeof f.title === 'string' && typeof f.value === 'string')
      )
        return 'FactSet';
    }
    return null;
  },
  // Discord: content ≤ 2000 and/or ≤ 10 embeds (title ≤ 256, description ≤ 4096, ≤ 25 fields).
  discord: (b) => {
    if (b.content === undefined && !b.embeds?.length) return 'empty';
    if (b.content !== undefined && !isStr(b.content, 2000)) return 'content';
    if ((b.embeds ?? []).length > 10) return 'embeds';
    for (const e of b.embeds ?? []) {
      if (e.title !== undefined && !isStr(e.title, 256)) return 'title';
      if (e.description !== undefined && typeof e.description === 'string' && e.description.length > 4096)
        return 'description';
      if (e.color !== undefined && !(Number.isInteger(e.color) && e.color >= 0 && e.color <= 0xffffff)) return 'color';
      if ((e.fields ?? []).length > 25) return 'fields';
      for (const f of e.fields ?? []) if (!isStr(f.name, 256) || !isStr(f.value, 1024)) return 'field';
    }
    return null;
  },
  // Mattermost: markdown text (or attachments with fields {short, title, value}).
  mattermost: (b) => {
    if (!isStr(b.text, 16_383) && !b.attachments?.length) return 'text';
    for (const a of b.attachments ?? [])
      for (const f of a.fields ?? []) if (typeof f.title !== 'string' || typeof f.short !== 'boolean') return 'field';
    return null;
  },
  // Google Chat: a text message (≤ 4,096 characters).
  google_chat: (b) => (isStr(b.text, 4096) ? null : 'text'),
};

const MATTERMOST_HOOK = 'abcdefghijklmnopqrstuvwxyz';
const URLS: Record<Exclude<ChatService, 'generic'>, string> = {
  slack: 'http://hooks.slack.com/services/T000/B000/XXXXXXXXXXXX',
  teams: 'http://contoso.webhook.office.com/webhookb2/1234/IncomingWebhook/abcd/efgh',
  discord: 'http://discord.com/api/webhooks/1234567890/token-abc',
  mattermost: `http://chat.team.test/hooks/${MATTERMOST_HOOK}`,
  google_chat: 'http://chat.googleapis.com/v1/spaces/AAAA/messages?key=k&token=t',
};
const SERVICES = Object.keys(URLS) as Exclude<ChatService, 'generic'>[];

describe('chatServiceOf', () => {
  it('names the service by the URL', () => {
    for (const s of SERVICES) expect([s, chatServiceOf(URLS[s])]).toEqual([s, s]);
    expect(chatServiceOf('https://prod-12.westeurope.logic.azure.com/workflows/x/triggers/manual/paths/invoke')).toBe(
      'teams',
    );
    expect(chatServiceOf('https://ptb.discord.com/api/webhooks/1/t')).toBe('discord');
    expect(chatServiceOf('https://discord.com/channels/1')).toBe('generic');
    expect(chatServiceOf('https://rocket.example/hooks/short')).toBe('generic');
  });
});

describe('chat channels', () => {
  let env: DeliveryEnv;
  let ws: string;
  const receivers = {} as Record<Exclude<ChatService, 'generic'>, Receiver>;
  const refusals: string[] = [];

  beforeAll(async () => {
    for (const s of SERVICES)
      receivers[s] = await Receiver.start((r): Answer => {
        const wrong = SHAPES[s](r.json);
        if (wrong) refusals.push(`${s}: ${wrong}`);
        return { status: wrong ? 400 : s === 'discord' ? 204 : 200 };
      });
    const hostMap = SERVICES.map((s) => `${new URL(URLS[s]).hostname}=127.0.0.1:${receivers[s].port}`).join(',');
    env = await DeliveryEnv.create({ FETCH_HOST_MAP: hostMap });
    ws = await env.workspace();
    await env.startApp();
  });
  afterAll(async () => {
    await env.close();
    for (const r of Object.values(receivers)) await r.close();
  });

  const runFinished = (projectId: string, runId: string, counts: Record<string, number>) =>
    env.publish(ws, 'run.finished', {
      projectId,
      runId,
      status: 'done',
      pages: 12,
      counts,
      stop: 'exhausted',
      digest: {
        summary: 'The pricing page raised the team plan.',
        points: ['Team plan now 49 a month', 'New FAQ entry on refunds'],
        significant: true,
      },
    });

  it('posts a run with changes in each service’s own shape, unsigned, and never a clean run', async () => {
    // The checks can fail: an empty body is refused by every one.
    for (const s of SERVICES) expect([s, SHAPES[s]({})]).not.toEqual([s, null]);
    const projects = Object.fromEntries(
      await Promise.all(SERVICES.map(async (s) => [s, await env.project(ws, { chat_url: URLS[s] }, `${s}.site.test`)])),
    ) as Record<string, string>;
    for (const s of SERVICES)
      await runFinished(projects[s]!, 'run_clean', { added: 0, removed: 0, modified: 0, same: 9 });
    for (const s of SERVICES)
      await runFinished(projects[s]!, 'run_news', { added: 1, removed: 0, modified: 2, same: 9 });
    for (const s of SERVICES) await receivers[s].waitFor(1);
    await env.until(
      () => env.prisma.delivery.count({ where: { channel: 'chat', status: 'delivered', runId: 'run_news' } }),
      (n) => n === SERVICES.length,
    );
    expect(refusals).toEqual([]);
    for (const s of SERVICES) {
      const [post] = receivers[s].received;
      expect(post!.path).toBe(new URL(URLS[s]).pathname + new URL(URLS[s]).search);
      expect(post!.headers['x-service-signature']).toBeUndefined();
      expect(post!.headers['webhook-signature']).toBeUndefined();
      // The run record: what changed and the digest.
      expect([s, post!.body]).toEqual([s, expect.stringContaining('3 pages changed')]);
      expect([s, post!.body]).toEqual([s, expect.stringContaining('Team plan now 49 a month')]);
    }
    expect(await env.prisma.delivery.count({ where: { runId: 'run_clean' } })).toBe(0);
    await new Promise((ok) => setTimeout(ok, 300));
    for (const s of SERVICES) expect(receivers[s].received).toHaveLength(1);
  });

  it('posts site.failing and site.recovered, and retries a chat post like a webhook', async () => {
    let answer = 503;
    const slack = receivers.slack;
    slack.behaviour = () => ({ status: answer });
    const before = slack.received.length;
    const id = await env.project(ws, { chat_url: URLS.slack }, 'flaky.test');
    await env.publish(ws, 'site.failing', { projectId: id, runId: 'run_f', reason: 'the home page answers 503' });
    await slack.waitFor(before + 2);
    answer = 200;
    const d = await env.until(
      () => env.prisma.delivery.findFirst({ where: { projectId: id, event: 'site.failing' }, include: { log: true } }),
      (d) => d?.status === 'delivered',
    );
    expect(d!.log.map((a) => a.outcome).sort()).toEqual(expect.arrayContaining(['retry', 'delivered']));
    expect(slack.received.at(-1)!.json.text).toContain('flaky.test: the site is failing');
    await env.publish(ws, 'site.recovered', { projectId: id, runId: 'run_r', reason: null });
    const recovered = await slack.waitFor(slack.received.length + 1);
    expect(recovered.at(-1)!.json.text).toContain('flaky.test: the site recovered');
  });
});
