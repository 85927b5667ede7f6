import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { deliveryV1 } from '@tidemark/contracts';
import { newId } from '@tidemark/db';
import { DeliveryEnv } from './support/delivery-env.js';
import { SmtpServer } from './support/smtp-server.js';

/** A workspace with members (the gateway's tables, written here as it would). */
const workspaceWithMembers = async (env: DeliveryEnv, emails: string[]) => {
  const ws = await env.workspace();
  const users: string[] = [];
  for (const email of emails) {
    const id = newId('usr');
    await env.prisma.user.create({ data: { id, email, name: email.split('@')[0] } });
    await env.prisma.member.create({ data: { workspaceId: ws, userId: id, role: 'member' } });
    users.push(id);
  }
  return { ws, users };
};

const news = (projectId: string, runId: string, modified: number) => ({
  projectId,
  runId,
  status: 'done',
  pages: 4,
  counts: { added: 0, removed: 0, modified, same: 4 - modified },
  stop: 'exhausted',
  digest: null,
});

describe('notifications, without a mail host', () => {
  let env: DeliveryEnv;

  beforeAll(async () => {
    env = await DeliveryEnv.create();
    await env.startApp();
  });
  afterAll(() => env.close());

  const list = (req: Omit<deliveryV1.ListNotificationsRequest, 'before'>) => env.rpc().call('listNotifications', req);
  const seen = (req: deliveryV1.SeenNotificationRequest) => env.rpc().call('seenNotification', req);

  it('gives each member their own run and monitor notifications; another member’s is 404', async () => {
    const { ws, users } = await workspaceWithMembers(env, ['ana@ws.test', 'ben@ws.test']);
    const [ana, ben] = users as [string, string];
    const project = await env.project(ws, {}, 'watched.test');
    await env.publish(ws, 'run.finished', news(project, 'run_clean', 0));
    await env.publish(ws, 'run.finished', news(project, 'run_news', 2));
    await env.publish(ws, 'site.failing', { projectId: project, runId: 'run_news', reason: null });
    const inbox = await env.until(
      () => list({ workspaceId: ws, userId: ana, take: 10 }),
      (r) => r.notifications.length === 2,
    );
    const K = deliveryV1.NotificationKind;
    expect(inbox.mail).toBe(false);
    expect(inbox.notifications.map((n) => [n.kind, n.event, n.title]).sort()).toEqual([
      [K.NOTIFICATION_KIND_RUN, 'run.finished', 'watched.test: 2 pages changed'],
      [K.NOTIFICATION_KIND_MONITOR, 'site.failing', 'watched.test: the site is failing'],
    ]);
    const run = inbox.notifications.find((n) => n.kind === K.NOTIFICATION_KIND_RUN)!;
    expect(run).toMatchObject({ projectId: project, runId: 'run_news', data: { counts: { modified: 2 } } });
    expect(run.body).toContain('Modified: 2');
    // Nothing for the run that compared clean.
    expect(await env.prisma.notification.count({ where: { runId: 'run_clean' } })).toBe(0);

    await expect(seen({ workspaceId: ws, userId: ben, notificationId: run.id })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(seen({ workspaceId: 'ws_other', userId: ana, notificationId: run.id })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(seen({ workspaceId: ws, userId: ana, notificationId: run.id })).resolves.toEqual({});
    const after = await list({ workspaceId: ws, userId: ana, take: 10 });
    expect(after.notifications.map((n) => n.event)).toEqual(['site.failing']);
    // Ben's copy is his own and still there.
    expect((await list({ workspaceId: ws, userId: ben, take: 10 })).notifications).toHaveLength(2);
    const paged = await list({ workspaceId: ws, userId: ben, take: 1 });
    expect(paged).toMatchObject({ more: true });
    expect(paged.notifications).toHaveLength(1);
    // A page size out of bounds is refused, as the gateway would.
    await expect(list({ workspaceId: ws, userId: ben, take: 0 })).rejects.toMatchObject({ code: 'validation' });
  });
});

describe('the run e-mail, with a mail host', () => {
  let env: DeliveryEnv;
  let smtp: SmtpServer;

  beforeAll(async () => {
    smtp = await SmtpServer.start();
    env = await DeliveryEnv.create({ DELIVERY_SMTP_URL: smtp.url, DELIVERY_MAIL_FROM: 'Tidemark <tm@tidemark.test>' });
    await env.startApp();
  });
  afterAll(async () => {
    await env.close();
    await smtp.close();
  });

  it('mails each member the run record and keeps no inbox', async () => {
    const { ws, users } = await workspaceWithMembers(env, ['cy@mail.test', 'di@mail.test']);
    const project = await env.project(ws, {}, 'mailed.test');
    await env.publish(ws, 'run.finished', {
      ...news(project, 'run_mail', 3),
      digest: { summary: 'Three product pages changed price.', points: ['Widget now 12'], significant: true },
    });
    await env.until(
      async () => smtp.mails.length,
      (n) => n === 2,
    );
    expect(smtp.mails.map((m) => m.to).sort()).toEqual([['cy@mail.test'], ['di@mail.test']]);
    const mail = smtp.mails[0]!;
    expect(mail.from).toBe('tm@tidemark.test');
    expect(mail.data).toContain('Subject: [Tidemark] mailed.test: 3 pages changed');
    expect(mail.data).toContain('Three product pages changed price.');
    expect(mail.data).toContain('- Widget now 12');
    await env.until(
      () => env.prisma.delivery.count({ where: { channel: 'email', runId: 'run_mail', status: 'delivered' } }),
      (n) => n === 2,
    );
    expect(await env.prisma.notification.count({ where: { workspaceId: ws } })).toBe(0);
    const inbox = await env.rpc().call('listNotifications', { workspaceId: ws, userId: users[0]!, take: 10 });
    expect(inbox).toEqual({ notifications: [], more: false, mail: true });
  });

  it('fails a recipient the server refuses for good, retries one refused for now', async () => {
    const { ws } = await workspaceWithMembers(env, ['gone@mail.test', 'busy@mail.test']);
    let busy = true;
    smtp.rcpt = (a) =>
      a === 'gone@mail.test' ? '550 no such mailbox' : busy && a === 'busy@mail.test' ? '451 try later' : '250 OK';
    const project = await env.project(ws, {}, 'refused.test');
    await env.publish(ws, 'run.finished', news(project, 'run_refused', 1));
    const gone = await env.until(
      () => env.prisma.delivery.findFirst({ where: { runId: 'run_refused', url: 'mailto:gone@mail.test' } }),
      (d) => d?.status === 'failed',
    );
    expect(gone).toMatchObject({ attempts: 1, lastStatus: 550 });
    await env.until(
      () => env.prisma.delivery.findFirst({ where: { runId: 'run_refused', url: 'mailto:busy@mail.test' } }),
      (d) => (d?.retries ?? 0) >= 1,
    );
    busy = false;
    const later = await env.until(
      () => env.prisma.delivery.findFirst({ where: { runId: 'run_refused', url: 'mailto:busy@mail.test' } }),
      (d) => d?.status === 'delivered',
    );
    expect(later!.attempts).toBeGreaterThanOrEqual(2);
    expect(smtp.mails.filter((m) => m.to.includes('busy@mail.test'))).toHaveLength(1);
    smtp.rcpt = () => '250 OK';
  });
});
