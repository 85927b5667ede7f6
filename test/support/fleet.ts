import { Bus } from '@tidemark/bus';
import {
  startFleet,
  startProcessFleet,
  type Fleet,
  type ProcessFleet,
  type ProcessFleetOptions,
} from '@tidemark/local';
import { createLogger } from '@tidemark/telemetry';
import { createTestDatabase, TEST_INFRA, uniquePrefix, type TestDatabase } from '@tidemark/testkit';

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  /** Sent as is, for malformed-JSON and size tests. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestFleet {
  apiUrl: string;
  /** The web application's address (ending in '/'); its /v1 reaches this fleet's gateway. */
  webUrl: string;
  db: TestDatabase;
  fleet: Fleet;
  /** The env the fleet was started with, for processes (the CLI) that must share it. */
  env: Record<string, string>;
  /** `env` with every gRPC service's address as the fleet dialed it: what one more gateway on this fleet needs. */
  dialEnv: Record<string, string>;
  call<T = any>(method: string, path: string, opts?: CallOptions): Promise<Answer<T>>;
  createWorkspace(name?: string): Promise<{ workspaceId: string; apiKey: string }>;
  /** A key of the given scope (and options) in the workspace of `adminKey`. */
  createKey(adminKey: string, body: Record<string, unknown>): Promise<string>;
  /**
   * Waits, if need be, until at least ten seconds are left in the current one-minute rate window
   * (read from the gateway's X-RateLimit-Reset for `apiKey`), so a burst a test counts is not
   * split over two windows. Every fixed window is aligned on Redis's clock, so this holds for
   * the per-address limits too.
   */
  awayFromRateWindowEdge(apiKey: string): Promise<void>;
  stop(): Promise<void>;
}

/** The env of a test fleet: this file's database, NATS prefix and Redis prefix, ports the system picks. */
const testFleetEnv = (db: TestDatabase, prefix: string, extraEnv: Record<string, string>): Record<string, string> => ({
  DATABASE_URL: db.url,
  NATS_URL: TEST_INFRA.natsUrl,
  REDIS_URL: TEST_INFRA.redisUrl,
  NATS_PREFIX: prefix,
  REDIS_PREFIX: `${prefix}:`,
  GATEWAY_PORT: '0',
  WEB_PORT: '0',
  AGENT_PORT: '0',
  BILLING_GRPC_LISTEN: '127.0.0.1:0',
  SCRAPE_GRPC_LISTEN: '127.0.0.1:0',
  CRAWL_GRPC_LISTEN: '127.0.0.1:0',
  MAP_GRPC_LISTEN: '127.0.0.1:0',
  DIFF_GRPC_LISTEN: '127.0.0.1:0',
  EXPORT_GRPC_LISTEN: '127.0.0.1:0',
  DELIVERY_GRPC_LISTEN: '127.0.0.1:0',
  // Chromium only where a test asks for it (FLEET_BROWSER_POOL: '1'); elsewhere the browser
  // tier is unavailable and the rows say so.
  FLEET_BROWSER_POOL: '0',
  BROWSER_POOL_GRPC_URL: '127.0.0.1:1',
  BROWSER_POOL_GRPC_LISTEN: '127.0.0.1:0',
  BROWSER_POOL_BROWSERS: '1',
  BROWSER_POOL_TABS_PER_BROWSER: '4',
  BILLING_ACK_WAIT_MS: '2000',
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  FETCH_ALLOW_NETWORKS: '127.0.0.0/8',
  // TEST_CRAWL_ENGINE=paged runs the suite's crawls on the paged engine (ADR 13; leased, ADR 14,
  // is the default). Tests of one engine's own behaviour name it.
  ...(process.env.TEST_CRAWL_ENGINE ? { CRAWL_ENGINE: process.env.TEST_CRAWL_ENGINE } : {}),
  // TEST_CRAWL_LEASE_SLOTS=2 splits the suite's leased crawls over two lease slots.
  ...(process.env.TEST_CRAWL_LEASE_SLOTS ? { CRAWL_LEASE_SLOTS: process.env.TEST_CRAWL_LEASE_SLOTS } : {}),
  ...extraEnv,
});

/** Calls the API at `apiUrl` as a client would; a JSON answer parsed, any other kept as text. */
const apiCaller =
  (apiUrl: string) =>
  async (method: string, path: string, opts: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${apiUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON (the docs page); keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };

/** What a test fleet leaves behind: its streams and its database. */
const cleanUp = async (prefix: string, db: TestDatabase) => {
  const bus = await Bus.connect({
    url: TEST_INFRA.natsUrl,
    prefix,
    name: 'cleanup',
    logger: createLogger('cleanup', 'silent'),
  });
  await bus.destroyStreams();
  await bus.close();
  await db.drop();
};

/**
 * The whole fleet in this process on a database, NATS prefix and Redis prefix of this test
 * file's own, so files run in parallel without sharing state.
 */
export const startTestFleet = async (extraEnv: Record<string, string> = {}): Promise<TestFleet> => {
  const db = await createTestDatabase();
  const prefix = uniquePrefix();
  const env = testFleetEnv(db, prefix, extraEnv);
  const fleet = await startFleet(env);
  const { grpc } = fleet;
  const dialEnv: Record<string, string> = {
    ...env,
    BILLING_GRPC_URL: grpc.billing,
    SCRAPE_GRPC_URL: grpc.scrape,
    CRAWL_GRPC_URL: grpc.crawl,
    MAP_GRPC_URL: grpc.map,
    DIFF_GRPC_URL: grpc.diff,
    EXPORT_GRPC_URL: grpc.export,
    DELIVERY_GRPC_URL: grpc.delivery,
    ...(grpc.browserPool ? { BROWSER_POOL_GRPC_URL: grpc.browserPool } : {}),
  };

  const call = apiCaller(fleet.apiUrl);

  return {
    apiUrl: fleet.apiUrl,
    webUrl: fleet.webUrl,
    db,
    fleet,
    env,
    dialEnv,
    call,
    createWorkspace: (name = 'test') => fleet.gateway.workspaces.create(name),
    async createKey(adminKey, body) {
      const res = await call('POST', '/me/keys', { key: adminKey, body: { name: 'test key', ...body } });
      if (res.status !== 201) throw new Error(`key not created: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.key as string;
    },
    async awayFromRateWindowEdge(apiKey) {
      const reset = Number((await call('GET', '/meta', { key: apiKey })).headers.get('x-ratelimit-reset'));
      if (!(reset >= 1)) throw new Error(`no X-RateLimit-Reset on /meta: ${reset}`);
      if (reset < 10) await new Promise((r) => setTimeout(r, (reset + 1) * 1000));
    },
    async stop() {
      await fleet.stop();
      await cleanUp(prefix, db);
    },
  };
};

export interface TestProcessFleet extends Pick<TestFleet, 'apiUrl' | 'db' | 'call' | 'createWorkspace' | 'stop'> {
  fleet: ProcessFleet;
}

/**
 * The fleet with each service in a process of its own (`startProcessFleet`), on a database,
 * NATS prefix and Redis prefix of its own like `startTestFleet`.
 */
export const startTestProcessFleet = async (
  extraEnv: Record<string, string> = {},
  opts: ProcessFleetOptions = {},
): Promise<TestProcessFleet> => {
  const db = await createTestDatabase();
  const prefix = uniquePrefix();
  let fleet: ProcessFleet;
  try {
    fleet = await startProcessFleet(testFleetEnv(db, prefix, extraEnv), opts);
  } catch (err) {
    await cleanUp(prefix, db);
    throw err;
  }
  return {
    apiUrl: fleet.apiUrl,
    db,
    fleet,
    call: apiCaller(fleet.apiUrl),
    createWorkspace: (name = 'test') => fleet.createWorkspace(name),
    async stop() {
      await fleet.stop();
      await cleanUp(prefix, db);
    },
  };
};
