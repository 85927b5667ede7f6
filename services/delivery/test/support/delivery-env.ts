import { Bus, type EventData, type EventKind } from '@tidemark/bus';
import { newId, type PrismaClient } from '@tidemark/db';
import { applyConfigPatch, deliveryV1, type ConfigPatch } from '@tidemark/contracts';
import { connectClient, type RpcClient } from '@tidemark/rpc';
import { createLogger } from '@tidemark/telemetry';
import { createTestDatabase, TEST_INFRA, uniquePrefix, type TestDatabase } from '@tidemark/testkit';
import { buildApp, type DeliveryApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';

/**
 * One test file's delivery world: its own database and NATS prefix, a publisher of events, and
 * delivery apps started on demand (several at once for the two-worker tests).
 */
export class DeliveryEnv {
  private readonly apps = new Set<DeliveryApp>();
  private readonly clients = new Map<DeliveryApp, RpcClient<deliveryV1.DeliveryServiceClient>>();

  private constructor(
    readonly db: TestDatabase,
    readonly prefix: string,
    readonly bus: Bus,
    readonly env: Record<string, string>,
  ) {}

  static async create(env: Record<string, string> = {}): Promise<DeliveryEnv> {
    const db = await createTestDatabase();
    const prefix = uniquePrefix();
    const bus = await Bus.connect({
      url: TEST_INFRA.natsUrl,
      prefix,
      name: 'delivery-test',
      logger: createLogger('t', 'silent'),
    });
    return new DeliveryEnv(db, prefix, bus, {
      DATABASE_URL: db.url,
      NATS_URL: TEST_INFRA.natsUrl,
      NATS_PREFIX: prefix,
      FETCH_ALLOW_NETWORKS: '127.0.0.0/8',
      DELIVERY_RETRY_SCALE: '0.0001',
      DELIVERY_POLL_MS: '20',
      DELIVERY_GRPC_LISTEN: '127.0.0.1:0',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ...env,
    });
  }

  get prisma(): PrismaClient {
    return this.db.prisma;
  }

  async startApp(env: Record<string, string> = {}): Promise<DeliveryApp> {
    const app = await buildApp(loadConfig({ ...this.env, ...env }));
    const { grpcPort } = await app.start();
    this.apps.add(app);
    this.clients.set(app, connectClient(deliveryV1.DeliveryServiceClient, `127.0.0.1:${grpcPort}`, 'delivery'));
    return app;
  }

  /** A DeliveryService client of `app` (the first started by default), as the gateway calls it. */
  rpc(app?: DeliveryApp): RpcClient<deliveryV1.DeliveryServiceClient> {
    const client = this.clients.get(app ?? [...this.apps][0]!);
    if (!client) throw new Error('no delivery app is running');
    return client;
  }

  async stopApp(app: DeliveryApp): Promise<void> {
    this.apps.delete(app);
    this.clients.get(app)?.close();
    this.clients.delete(app);
    await app.stop();
  }

  publish<K extends EventKind>(workspaceId: string, kind: K, data: EventData<K>): Promise<void> {
    return this.bus.publishEvent(workspaceId, kind, data);
  }

  async workspace(name = 'delivery'): Promise<string> {
    const id = newId('ws');
    await this.prisma.workspace.create({ data: { id, name } });
    return id;
  }

  async project(workspaceId: string, output: ConfigPatch = {}, host = 'site.test'): Promise<string> {
    const id = newId('prj');
    await this.prisma.project.create({
      data: {
        id,
        workspaceId,
        name: host,
        seed: `https://${host}/`,
        host,
        config: applyConfigPatch(undefined, output) as object,
      },
    });
    return id;
  }

  /** A job row as scrape or crawl leave it: the webhook secret in `secret`. */
  async job(
    workspaceId: string,
    kind: 'crawl' | 'scrape',
    secret: string,
    runId: string | null = null,
  ): Promise<string> {
    const id = newId('job');
    await this.prisma.job.create({ data: { id, workspaceId, kind, secret, runId } });
    return id;
  }

  /** Polls until `check` holds (the schedule works in the background). */
  async until<T>(read: () => Promise<T>, check: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await read();
      if (check(v)) return v;
      if (Date.now() > end) throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(v)}`);
      await new Promise((ok) => setTimeout(ok, 50));
    }
  }

  /** Stops every app this env started (between tests, so each test knows who is sending). */
  async stopApps(): Promise<void> {
    for (const app of [...this.apps]) await this.stopApp(app);
  }

  async close(): Promise<void> {
    await this.stopApps();
    await this.bus.destroyStreams();
    await this.bus.close();
    await this.db.drop();
  }
}
