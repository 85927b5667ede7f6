import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ERROR_CODES } from '@tidemark/errors';
import { startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import {
  deepJson,
  headerValue,
  hostileJson,
  mutated,
  pathValue,
  queryValue,
  validish,
  type SchemaContext,
} from '../support/schema-arbitrary.js';

/**
 * Property-based fuzz of every route in the OpenAPI document: malformed bodies, queries, path
 * segments and headers, drawn from each route's own schemas (so many get past the first check)
 * and from a pool of hostile values. Whatever is sent, no answer is a 5xx, and every error is
 * the spec's envelope with the request id. Seeded (FUZZ_SEED) so a failure replays; FUZZ_RUNS
 * sets the requests per route.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);

interface Operation {
  method: string;
  path: string;
  op: any;
}

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

interface Got {
  status: number;
  requestId: string | null;
  body: unknown;
  text: string;
}

/** Why an answer breaks the contract, or null when it keeps it. */
export const contractBreach = (got: Got): string | null => {
  if (got.status >= 500) return `answered ${got.status}`;
  if (got.status < 400) return null;
  const b = got.body as Record<string, unknown> | undefined;
  if (!b || typeof b !== 'object') return `error ${got.status} is not JSON: ${got.text.slice(0, 120)}`;
  if (typeof b.error !== 'string' || !b.error) return `error ${got.status} has no message`;
  if (typeof b.code !== 'string' || !Object.hasOwn(ERROR_CODES, b.code)) return `unknown code ${String(b.code)}`;
  if (!got.requestId || b.request_id !== got.requestId) return 'request_id missing or not the header’s';
  return null;
};

const encodeSegment = (s: string, raw: boolean): string => {
  if (raw && /^[\x21-\x7e]*$/.test(s) && !/[/?#]/.test(s)) return s;
  try {
    return encodeURIComponent(s);
  } catch {
    // a lone surrogate: send the bytes Node would make of it
    return [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
};

describe('every route, fuzzed from the OpenAPI document', () => {
  let t: TestFleet;
  let web: TestWeb;
  let admin: string;
  let readKey: string;
  let workspaceId: string;
  let doc: any;
  let ctx: SchemaContext;
  const realIds: string[] = [];
  const statuses = new Map<string, Map<number, number>>();

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({
      FETCH_HOST_MAP: web.hostMap,
      GATEWAY_AUTH_IP_RPM: '100000',
      // The whole fleet, Chromium included: routes that reach the browser pool are fuzzed too.
      FLEET_BROWSER_POOL: '1',
    });
    const ws = await t.createWorkspace('fuzz');
    admin = ws.apiKey;
    workspaceId = ws.workspaceId;
    await t.db.prisma.workspace.update({ where: { id: workspaceId }, data: { plan: 'unmetered' } });
    readKey = await t.createKey(admin, { scopes: ['read'] });
    doc = (await t.call('GET', '/docs/openapi.json')).body;
    ctx = {
      components: doc.components.schemas,
      urls: [web.url('news.test', '/'), web.url('news.test', '/articles/tides'), 'https://unknown.invalid/'],
    };
    const project = await t.call('POST', '/projects', { key: admin, body: { seed: web.url('news.test', '/') } });
    realIds.push(project.body.id);
    const run = await t.call('POST', `/projects/${project.body.id}/runs`, { key: admin });
    if (run.body?.id) realIds.push(run.body.id);
    const crawl = await t.call('POST', '/crawl', { key: admin, body: { url: web.url('news.test', '/'), limit: 3 } });
    if (crawl.body?.id) realIds.push(crawl.body.id);
  });
  afterAll(async () => {
    await t?.stop();
    await web?.close();
  });

  const operations = (): Operation[] => {
    const ops: Operation[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) ops.push({ method: method.toUpperCase(), path, op });
    }
    // Deleting comes last, so the ids the others use live as long as possible.
    return ops.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
  };

  const request = (o: Operation): fc.Arbitrary<Sent> => {
    const params: any[] = o.op.parameters ?? [];
    const pathParams = params.filter((p) => p.in === 'path');
    const queryParams = params.filter((p) => p.in === 'query');
    const bodySchema = o.op.requestBody?.content?.['application/json']?.schema;
    const body: fc.Arbitrary<{ text?: string; type?: string }> = fc.oneof(
      ...(bodySchema
        ? [
            { weight: 3, arbitrary: validish(bodySchema, ctx).map((v) => ({ text: JSON.stringify(v) })) },
            { weight: 3, arbitrary: mutated(bodySchema, ctx).map((v) => ({ text: JSON.stringify(v) })) },
          ]
        : [{ weight: 3, arbitrary: fc.constant({}) }]),
      { weight: 1, arbitrary: hostileJson.map((v) => ({ text: JSON.stringify(v) ?? 'undefined' })) },
      { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((s) => ({ text: s })) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          { text: deepJson(20_000) },
          { text: '{"a":1}', type: 'text/plain' },
          { text: '<x/>', type: 'application/xml' },
          { text: '{"a":1}', type: 'application/json; charset=latin1' },
          { text: 'a=1&b=2', type: 'application/x-www-form-urlencoded' },
          { text: '\u0000\u0001', type: 'application/json' },
          {},
        ),
      },
    );
    const query = fc.record(
      {
        declared: fc.record(Object.fromEntries(queryParams.map((p) => [p.name, queryValue(p.schema ?? {}, ctx)])), {
          requiredKeys: [],
        }),
        // Unknown and repeated parameters are refused early, so they come now and then only.
        extra: fc.oneof(
          { weight: 3, arbitrary: fc.constant({}) },
          {
            weight: 1,
            arbitrary: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.string({ maxLength: 10 }), {
              maxKeys: 2,
            }),
          },
        ),
        repeated: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      },
      { requiredKeys: ['declared', 'extra', 'repeated'] },
    );
    const auth = fc.oneof(
      { weight: 6, arbitrary: fc.constant('admin') },
      { weight: 2, arbitrary: fc.constant('read') },
      { weight: 1, arbitrary: fc.constantFrom('none', 'Bearer ', 'Bearer service_nope', 'Basic YTpi', 'bearer') },
    );
    // Each header is sent now and then: x-service-tenant naming another workspace answers 404
    // before anything else, so sending it every time would hide the rest of the route.
    const sometimes = (a: fc.Arbitrary<string>): fc.Arbitrary<string | undefined> =>
      fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: a });
    const headers = fc.record({
      idempotency: sometimes(headerValue),
      tenant: sometimes(headerValue),
      requestId: sometimes(headerValue),
      cookie: sometimes(headerValue),
    });
    return fc
      .record({
        segs: fc.tuple(...pathParams.map(() => pathValue(realIds)), fc.constant('')),
        rawPath: fc.boolean(),
        query,
        body,
        auth,
        headers,
      })
      .map(({ segs, rawPath, query: q, body: b, auth: a, headers: h }) => {
        let i = 0;
        const path = o.path.replace(/\{[^}]+\}/g, () => encodeSegment(segs[i++] ?? '', rawPath));
        const qs = new URLSearchParams();
        for (const [k, v] of Object.entries({ ...q.extra, ...q.declared })) {
          qs.append(k, String(v));
          if (q.repeated) qs.append(k, String(v));
        }
        const sent: Sent = { method: o.method, url: `${t.apiUrl}${path}${qs.size ? `?${qs}` : ''}`, headers: {} };
        if (a === 'admin') sent.headers.authorization = `Bearer ${admin}`;
        else if (a === 'read') sent.headers.authorization = `Bearer ${readKey}`;
        else if (a !== 'none') sent.headers.authorization = a;
        if (h.idempotency !== undefined) sent.headers['idempotency-key'] = h.idempotency;
        if (h.tenant !== undefined) sent.headers['x-service-tenant'] = h.tenant;
        if (h.requestId !== undefined) sent.headers['x-request-id'] = h.requestId;
        if (h.cookie !== undefined) sent.headers.cookie = `tidemark_session=${h.cookie}`;
        if (o.method !== 'GET' && o.method !== 'DELETE' && b.text !== undefined) {
          sent.body = b.text;
          sent.headers['content-type'] = b.type ?? 'application/json';
        }
        return sent;
      });
  };

  const send = async (s: Sent): Promise<Got> => {
    const res = await fetch(s.url, {
      method: s.method,
      headers: s.headers,
      body: s.body,
      signal: AbortSignal.timeout(150_000),
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: res.status, requestId: res.headers.get('x-request-id'), body, text };
  };

  it('is a check that can fail', () => {
    expect(contractBreach({ status: 500, requestId: 'r', body: {}, text: '' })).toMatch(/500/);
    expect(
      contractBreach({ status: 422, requestId: 'r', body: { error: 'x', code: 'nope', request_id: 'r' }, text: '' }),
    ).toMatch(/unknown code/);
    expect(contractBreach({ status: 404, requestId: 'r', body: { error: 'x', code: 'not_found' }, text: '' })).toMatch(
      /request_id/,
    );
    expect(
      contractBreach({
        status: 404,
        requestId: 'r',
        body: { error: 'x', code: 'not_found', request_id: 'r' },
        text: '',
      }),
    ).toBeNull();
  });

  it('answers no 5xx and only the envelope on error, for every route', async () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(50);
    const failures: string[] = [];
    for (const o of ops) {
      const name = `${o.method} ${o.path}`;
      const seen = new Map<number, number>();
      statuses.set(name, seen);
      const result = await fc.check(
        fc.asyncProperty(request(o), async (s) => {
          const got = await send(s);
          seen.set(got.status, (seen.get(got.status) ?? 0) + 1);
          // A fuzzed PATCH /me may set a rate ceiling of 1; put it back so the rest still runs.
          if (o.path === '/me' && o.method === 'PATCH') {
            await t.db.prisma.workspace.update({ where: { id: workspaceId }, data: { maxRpm: null } });
          }
          const breach = contractBreach(got);
          if (breach) throw new Error(`${breach}: ${s.method} ${s.url.slice(0, 300)} body=${s.body?.slice(0, 300)}`);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
      if (result.failed) failures.push(`${name}: ${(result.errorInstance as Error)?.message ?? 'failed'}`);
    }
    const reached = [...statuses.values()].reduce((n, m) => n + [...m].filter(([s]) => s < 300).length, 0);
    if (process.env.FUZZ_REPORT) {
      for (const [name, m] of statuses) process.stderr.write(`${name}: ${JSON.stringify(Object.fromEntries(m))}\n`);
    }
    expect(failures).toEqual([]);
    // The fuzz got past validation somewhere, so it exercised handlers, not only the schemas.
    expect(reached).toBeGreaterThan(20);
  }, 900_000);
});
