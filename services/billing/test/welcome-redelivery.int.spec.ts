import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Bus } from '@tidemark/bus';
import { newId } from '@tidemark/db';
import { createLogger } from '@tidemark/telemetry';
import { createTestDatabase, TEST_INFRA, uniquePrefix, type TestDatabase } from '@tidemark/testkit';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const ACK_WAIT_MS = 1500;

const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs = 20_000) => {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('work.billing.welcome', () => {
  let db: TestDatabase;
  let bus: Bus;
  const prefix = uniquePrefix();
  const logger = createLogger('test', 'silent');

  beforeAll(async () => {
    db = await createTestDatabase();
    bus = await Bus.connect({ url: TEST_INFRA.natsUrl, prefix, name: 'test', logger });
  });
  afterAll(async () => {
    await bus.destroyStreams();
    await bus.close();
    await db.drop();
  });

  it('is redelivered when the worker dies before acking, and grants the credits once', async () => {
    const workspaceId = newId('ws');
    await db.prisma.workspace.create({ data: { id: workspaceId, name: 'redelivery' } });
    await bus.publishWork('work.billing.welcome', { workspaceId });

    // A worker in its own process does the work and is killed before it acks.
    const child = spawn(process.execPath, ['--import', 'tsx', resolve(here, 'fixtures/dying-worker.ts')], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        NATS_URL: TEST_INFRA.natsUrl,
        NATS_PREFIX: prefix,
        ACK_WAIT_MS: String(ACK_WAIT_MS),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exit = await new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_code, signal) => r(signal)));
    expect(out).toContain('worked');
    expect(exit).toBe('SIGKILL');
    expect(await db.prisma.ledgerEntry.count({ where: { workspaceId, reference: 'welcome' } })).toBe(1);

    // The message is still on the stream, unacked; a healthy billing worker gets it again.
    const app = await buildApp(
      loadConfig({
        DATABASE_URL: db.url,
        NATS_URL: TEST_INFRA.natsUrl,
        NATS_PREFIX: prefix,
        BILLING_GRPC_LISTEN: '127.0.0.1:0',
        BILLING_ACK_WAIT_MS: String(ACK_WAIT_MS),
        LOG_LEVEL: 'silent',
      }),
      { prisma: db.prisma, logger },
    );
    await app.start();
    try {
      await waitFor('the redelivered message to be acked', async () => {
        const info = await bus.consumerInfo('billing-welcome');
        return info.delivered >= 2 && info.ackPending === 0 && info.pending === 0;
      });
      // Delivered at least twice: to the worker that died, then to the one that acked. (The
      // server may first hand it once more to the dead worker's pull request, which it has not
      // yet noticed is gone; that delivery is lost the same way and the message comes back.)
      expect((await bus.consumerInfo('billing-welcome')).delivered).toBeGreaterThanOrEqual(2);
      expect(await db.prisma.ledgerEntry.count({ where: { workspaceId, reference: 'welcome' } })).toBe(1);
      await expect(app.ledger.balance(workspaceId)).resolves.toMatchObject({ granted: 1000, used: 0, remaining: 1000 });
    } finally {
      await app.stop();
    }
  });
});
