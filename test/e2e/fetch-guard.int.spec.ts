import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { openApiChecker } from '../support/openapi.js';

/**
 * Issue 12, the fetch guard, through the whole fleet (browser pool included). A server on
 * 127.0.0.2 stands for the operator's internal network: FETCH_ALLOW_NETWORKS exempts 127.0.0.1
 * alone (the test web, the webhook receiver), so nothing may ever reach 127.0.0.2, whatever
 * spelling, redirect, rung or channel leads there. The server counts every request it gets.
 */

const SECRET_BODY = 'internal-only: the admin token is 7f3a9c';

interface Internal {
  port: number;
  hits: string[];
  close(): Promise<void>;
}

const startInternal = async (): Promise<Internal> => {
  const hits: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    hits.push(`${req.method} ${req.headers.host ?? ''}${req.url ?? ''}`);
    req.resume();
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><p>${SECRET_BODY}</p></body></html>`);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.2', ok));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
};

/** A receiver on 127.0.0.1 (exempt), so the tests can show what does get through. */
const startReceiver = async () => {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '/');
    req.resume();
    res.writeHead(200).end();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
};

/** Every spelling of 127.0.0.2 (or a special address) an attacker may put in a URL. */
const spellings = (port: number) => [
  `http://[::ffff:127.0.0.2]:${port}/`, // IPv4-mapped, dotted (the URL parser writes [::ffff:7f00:2])
  `http://[::ffff:7f00:2]:${port}/`, // IPv4-mapped, hex
  `http://[0:0:0:0:0:ffff:7f00:2]:${port}/`, // IPv4-mapped, uncompressed
  `http://[::ffff:0.0.0.0]:${port}/`, // IPv4-mapped 0.0.0.0 (issue 12's report: [::ffff:0:0])
  `http://[::127.0.0.2]:${port}/`, // IPv4-compatible
  `http://[64:ff9b::127.0.0.2]:${port}/`, // NAT64
  `http://[2002:7f00:2::]:${port}/`, // 6to4
  `http://[2001::7f00:2]:${port}/`, // Teredo
  `http://[::]:${port}/`,
  `http://[::1]:${port}/`,
  `http://[fd00::2]:${port}/`,
  `http://[fe80::2]:${port}/`,
  `http://2130706434:${port}/`, // decimal
  `http://0x7f.2:${port}/`, // hex, two parts
  `http://0177.0.0.2:${port}/`, // octal
  `http://127.0.0.2.:${port}/`, // trailing dot
  `http://127.0.0.2:${port}/`,
];

const until = async <T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('the fetch guard through the fleet', () => {
  let web: TestWeb;
  let internal: Internal;
  let hooks: Awaited<ReturnType<typeof startReceiver>>;
  let t: TestFleet;
  let key: string;

  beforeAll(async () => {
    internal = await startInternal();
    hooks = await startReceiver();
    web = await startTestWeb();
    const p = internal.port;
    web.addSite('guard.test', {
      '/': {
        type: 'text/html',
        body: '<html><head><title>Guard</title></head><body><h1>Guarded site</h1><p>Home.</p></body></html>',
      },
      '/to-mapped': { status: 302, headers: { location: `http://[::ffff:127.0.0.2]:${p}/via-redirect` }, body: '' },
      '/to-hex': { status: 302, headers: { location: `http://[::ffff:7f00:2]:${p}/via-redirect` }, body: '' },
      '/to-decimal': { status: 302, headers: { location: `http://2130706434:${p}/via-redirect` }, body: '' },
      '/to-name': { status: 302, headers: { location: `http://inside.test:${p}/via-redirect` }, body: '' },
      // A page whose subresources, script fetches and frame all aim at the internal server.
      '/subresources': {
        type: 'text/html',
        body: `<!doctype html><html><head><title>Subresources</title>
<script src="http://2130706434:${p}/script.js"></script>
<link rel="stylesheet" href="http://[::ffff:7f00:2]:${p}/style.css"></head>
<body><h1>A page that reaches inside</h1>
<p id="out">pending</p>
<img src="http://[::ffff:127.0.0.2]:${p}/pixel.png">
<iframe src="http://0x7f.2:${p}/frame"></iframe>
<script>
  Promise.allSettled([
    fetch('http://[::ffff:7f00:2]:${p}/fetch').then((r) => r.text()),
    fetch('http://inside.test:${p}/fetch-name').then((r) => r.text()),
  ]).then((all) => {
    document.getElementById('out').textContent = all.map((x) => x.status + ':' + (x.value || '')).join(' ');
  });
</script>
<p>${'Words of an ordinary page about tides and harbours. '.repeat(60)}</p></body></html>`,
      },
      '/feed.xml': {
        type: 'application/rss+xml',
        body: `<?xml version="1.0"?><rss version="2.0"><channel><title>Guard</title><item><link>http://guard.test/news/1</link></item></channel></rss>`,
      },
      '/robots.txt': {
        type: 'text/plain',
        body: `User-agent: *\nAllow: /\nSitemap: http://[::ffff:7f00:2]:${p}/sitemap.xml\nSitemap: http://inside.test:${p}/sitemap.xml\n`,
      },
    });
    t = await startTestFleet({
      FETCH_ALLOW_NETWORKS: '127.0.0.1/32',
      // inside.test: a name that resolves (through the host map, as DNS would) to the internal
      // server; hooks.slack.com: a chat host that resolves to it in IPv4-mapped form.
      FETCH_HOST_MAP: [
        `inside.test=127.0.0.2:${p}`,
        `hooks.slack.com=[::ffff:127.0.0.2]:${p}`,
        `hooks.test=127.0.0.1:${hooks.port}`,
        web.hostMap,
      ].join(','),
      FLEET_BROWSER_POOL: '1',
      CRAWL_TICK_MS: '50',
      DELIVERY_POLL_MS: '50',
      DELIVERY_RETRY_SCALE: '0.0001',
    });
    const ws = await t.createWorkspace('guard');
    key = ws.apiKey;
    // A rate that lets one file send its hundred-odd requests in a minute.
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
  });
  afterAll(async () => {
    await t?.stop();
    await web?.close();
    await hooks?.close();
    await internal?.close();
  });

  const scrape = (url: string, config: Record<string, unknown> = {}) =>
    t.call('POST', '/scrape', { key, body: { url, timeout: 60, config } });

  it('the internal server is there to be reached: only the guard stands between', async () => {
    const res = await fetch(`http://127.0.0.2:${internal.port}/probe`);
    expect(await res.text()).toContain(SECRET_BODY);
    expect(internal.hits).toEqual([`GET 127.0.0.2:${internal.port}/probe`]);
    internal.hits.length = 0;
    // The exempt test web is read as usual.
    const ok = await scrape(web.url('guard.test', '/'));
    expect(ok.body.data[0]).toMatchObject({ status: 'done', httpStatus: 200 });
  });

  it('refuses every spelling as a scrape URL, in the HTTP rung and the browser rung, at no cost', async () => {
    for (const config of [{}, { render_js: 'always' }]) {
      for (const url of spellings(internal.port)) {
        const res = await scrape(url, config);
        const row = res.body.data?.[0];
        expect([url, config, res.status, row?.status, row?.errorCode, row?.credits]).toEqual([
          url,
          config,
          200,
          'error',
          'NETWORK',
          0,
        ]);
        expect([url, row.reason]).toEqual([url, expect.stringContaining('refused by the fetch guard')]);
        expect(JSON.stringify(res.body)).not.toContain(SECRET_BODY);
      }
    }
    expect(internal.hits).toEqual([]);
    // 34 scrapes one after another, half through Chromium: room for a loaded machine.
  }, 240_000);

  it('refuses a redirect to a spelling or to a name that resolves inside, in both rungs', async () => {
    for (const config of [{}, { render_js: 'always' }]) {
      for (const path of ['/to-mapped', '/to-hex', '/to-decimal', '/to-name']) {
        const res = await scrape(web.url('guard.test', path), config);
        const row = res.body.data[0];
        expect([path, config, row.status, row.errorCode]).toEqual([path, config, 'error', 'NETWORK']);
        expect([path, row.reason]).toEqual([path, expect.stringContaining('refused by the fetch guard')]);
      }
    }
    expect(internal.hits).toEqual([]);
  });

  it('lets the browser render a page whose subresources, fetches and frames aim inside, reaching none', async () => {
    const res = await scrape(web.url('guard.test', '/subresources'), { render_js: 'always' });
    const row = res.body.data[0];
    expect(row).toMatchObject({ status: 'done', method: 'browser', httpStatus: 200 });
    expect(row.markdown).toContain('A page that reaches inside');
    expect(JSON.stringify(res.body)).not.toContain(SECRET_BODY);
    expect(internal.hits).toEqual([]);
  });

  it('reads no robots.txt, sitemap or feed inside: map and crawl', async () => {
    const mapped = await t.call('POST', '/map', {
      key,
      body: { url: `http://[::ffff:7f00:2]:${internal.port}/`, timeout: 60 },
    });
    expect(mapped.status).toBe(200);
    const site = await t.call('POST', '/map', { key, body: { url: web.url('guard.test', '/'), timeout: 60 } });
    expect(site.status).toBe(200);
    // The map did try the sitemaps robots.txt names inside, and the guard is what stopped each.
    const refusedFiles = (site.body.errors as { file: string; reason: string }[])
      .filter((e) => e.reason.includes('refused by the fetch guard'))
      .map((e) => new URL(e.file).hostname);
    expect(refusedFiles.sort()).toEqual(['[::ffff:7f00:2]', 'inside.test']);
    const crawl = await t.call('POST', '/crawl', { key, body: { url: web.url('guard.test', '/'), limit: 3 } });
    expect(crawl.status).toBe(202);
    const done = await until(
      () => t.call('GET', `/crawl/${crawl.body.id}`, { key }),
      (r) => ['done', 'failed', 'cancelled'].includes(r.body.status),
    );
    expect(done.body.status).toBe('done');
    // A feed whose name resolves inside (saved as a name: only its send is judged) is read now by
    // the sources preview: refused, with the guard's reason.
    const project = await t.call('POST', '/projects', { key, body: { seed: web.url('guard.test', '/') } });
    expect(project.status).toBe(201);
    const preview = await t.call('POST', `/projects/${project.body.id}/sources/preview`, {
      key,
      body: { feeds: [web.url('guard.test', '/feed.xml'), `http://inside.test:${internal.port}/feed.xml`] },
    });
    expect(preview.status).toBe(200);
    // The exempt feed is read (the preview does read feeds); the inside one yields nothing, and
    // says why.
    expect(preview.body.feeds.map((f: { entries: number }) => f.entries)).toEqual([1, 0]);
    expect(preview.body.feeds[0].error).toBeNull();
    expect(preview.body.feeds[1].error).toMatch(/^refused by the fetch guard: /);
    openApiChecker((await t.call('GET', '/docs/openapi.json')).body).conforms(
      '/projects/{id}/sources/preview',
      'post',
      preview,
    );
    expect(internal.hits).toEqual([]);
  });

  it('answers 422 naming the field when a config, a job webhook or a connection names a refused address', async () => {
    const spelled = `http://[::ffff:7f00:2]:${internal.port}/hook`;
    const cases: [string, string, unknown, string][] = [
      ['POST', '/projects', { seed: `http://[::ffff:127.0.0.2]:${internal.port}/` }, 'body.seed'],
      [
        'POST',
        '/projects',
        { seed: 'https://a.example/', config: { webhook_url: spelled } },
        'body.config.webhook_url',
      ],
      [
        'POST',
        '/projects',
        { seed: 'https://a.example/', config: { output: { chat_url: `http://2130706434:${internal.port}/x` } } },
        'body.config.output.chat_url',
      ],
      [
        'POST',
        '/projects',
        {
          seed: 'https://a.example/',
          config: { feeds: ['https://a.example/feed', `http://[64:ff9b::a9fe:a9fe]/feed`] },
        },
        'body.config.feeds.1',
      ],
      [
        'POST',
        '/projects',
        {
          seed: 'https://a.example/',
          config: { scope: { url_list: [`http://[::ffff:a9fe:a9fe]/latest/meta-data/`] } },
        },
        'body.config.scope.url_list.0',
      ],
      ['POST', '/crawl', { url: web.url('guard.test', '/'), webhook: { url: spelled } }, 'body.webhook.url'],
      [
        'POST',
        '/crawl',
        { url: web.url('guard.test', '/'), config: { webhook_url: spelled } },
        'body.config.webhook_url',
      ],
      ['POST', '/scrape', { urls: [web.url('guard.test', '/')], webhook_url: spelled }, 'body.webhook_url'],
      [
        'POST',
        '/connections',
        {
          provider: 'openai_compatible',
          name: 'm',
          config: { base_url: `http://0x7f.2:${internal.port}/v1`, model: 'x' },
        },
        'body.config.base_url',
      ],
    ];
    const before = {
      projects: await t.db.prisma.project.count(),
      jobs: await t.db.prisma.job.count(),
      connections: await t.db.prisma.connection.count(),
    };
    for (const [method, path, body, field] of cases) {
      const res = await t.call(method, path, { key, body });
      expect([path, field, res.status, res.body.code]).toEqual([path, field, 422, 'validation']);
      expect([field, res.body.error]).toEqual([
        field,
        expect.stringMatching(new RegExp(`^${field.replace(/\./g, '\\.')}: refused by the fetch guard: `)),
      ]);
      expect(res.body.request_id).toEqual(expect.any(String));
    }
    expect({
      projects: await t.db.prisma.project.count(),
      jobs: await t.db.prisma.job.count(),
      connections: await t.db.prisma.connection.count(),
    }).toEqual(before);

    // A saved project: the PATCH is refused and the config stays as it was.
    const project = await t.call('POST', '/projects', { key, body: { seed: web.url('guard.test', '/') } });
    expect(project.status).toBe(201);
    const patch = await t.call('PATCH', `/projects/${project.body.id}`, {
      key,
      body: { config: { webhook_url: spelled } },
    });
    expect([patch.status, patch.body.error]).toEqual([
      422,
      expect.stringMatching(/^body\.config\.webhook_url: refused by the fetch guard/),
    ]);
    const after = await t.call('GET', `/projects/${project.body.id}`, { key });
    expect(after.body.config).toMatchObject({ version: 1, output: { webhook_url: null } });
    const preview = await t.call('POST', `/projects/${project.body.id}/sources/preview`, {
      key,
      body: { feeds: [`http://[::ffff:7f00:2]:${internal.port}/feed.xml`] },
    });
    expect([preview.status, preview.body.error]).toEqual([
      422,
      expect.stringMatching(/^body\.feeds\.0: refused by the fetch guard/),
    ]);

    // A batch of seeds: the refused one is listed with the reason, the others are created.
    const batch = await t.call('POST', '/projects/batch', {
      key,
      body: { seeds: ['https://fine.example/', `http://[::ffff:7f00:2]:${internal.port}/`] },
    });
    expect(batch.status).toBe(201);
    expect(batch.body.data.map((p: { seed: string }) => p.seed)).toEqual(['https://fine.example/']);
    expect(batch.body.refused).toEqual([
      {
        seed: `http://[::ffff:7f00:2]:${internal.port}/`,
        reason: expect.stringMatching(/^refused by the fetch guard: /),
      },
    ]);
    expect(internal.hits).toEqual([]);
  });

  it('refuses a webhook_url and a chat_url whose names resolve inside when sent; the delivery log says so', async () => {
    const project = await t.call('POST', '/projects', {
      key,
      body: {
        seed: web.url('guard.test', '/'),
        config: {
          webhook_url: `http://inside.test:${internal.port}/project-hook`,
          chat_url: `http://hooks.slack.com:${internal.port}/services/T000/B000/abcdef`,
        },
      },
    });
    expect(project.status).toBe(201);
    const sent = await t.call('POST', `/projects/${project.body.id}/webhooks/test`, { key });
    expect(sent.status).toBe(202);
    expect(sent.body.deliveries.map((d: { channel: string }) => d.channel).sort()).toEqual(['chat', 'webhook']);
    const list = await until(
      () => t.call('GET', `/webhooks/deliveries?projectId=${project.body.id}`, { key }),
      (r) => r.body.data?.length === 2 && r.body.data.every((d: { attempts: number }) => d.attempts >= 1),
    );
    for (const d of list.body.data) {
      expect([d.channel, d.status, d.lastStatus, d.attempts]).toEqual([d.channel, 'failed', null, 1]);
      expect([d.channel, d.lastError]).toEqual([d.channel, expect.stringMatching(/^refused by the fetch guard: /)]);
      expect([d.channel, d.log[0].error]).toEqual([d.channel, expect.stringMatching(/^refused by the fetch guard: /)]);
    }
    expect(internal.hits).toEqual([]);
  });

  it('refuses job webhooks (a crawl’s and a batch’s) whose names resolve inside when sent', async () => {
    const crawl = await t.call('POST', '/crawl', {
      key,
      body: {
        url: web.url('guard.test', '/'),
        limit: 1,
        webhook: { url: `http://inside.test:${internal.port}/crawl` },
      },
    });
    expect(crawl.status).toBe(202);
    const batch = await t.call('POST', '/scrape', {
      key,
      body: { urls: [web.url('guard.test', '/')], webhook_url: `http://inside.test:${internal.port}/batch` },
    });
    expect(batch.status).toBe(202);
    const jobs = [crawl.body.id as string, batch.body.id as string];
    const rows = await until(
      () => t.db.prisma.delivery.findMany({ where: { jobId: { in: jobs } } }),
      (r) =>
        jobs.every((j) => r.some((d) => d.jobId === j && ['crawl.completed', 'batch.finished'].includes(d.event))) &&
        r.every((d) => d.attempts >= 1),
    );
    expect(new Set(rows.map((d) => d.jobId))).toEqual(new Set(jobs));
    for (const d of rows) {
      expect([d.event, d.status, d.lastError]).toEqual([
        d.event,
        'failed',
        expect.stringMatching(/^refused by the fetch guard: /),
      ]);
    }
    expect(internal.hits).toEqual([]);
  });

  it('refuses a connection whose base URL resolves inside, answering a fixed reason', async () => {
    const made = await t.call('POST', '/connections', {
      key,
      body: {
        provider: 'openai_compatible',
        name: 'inside',
        config: { base_url: `http://inside.test:${internal.port}/v1`, model: 'tiny' },
      },
    });
    expect(made.status).toBe(201);
    const tested = await t.call('POST', `/connections/${made.body.id}/test`, { key });
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({
      ok: false,
      status: null,
      error: 'refused by the fetch guard: base_url is a private or reserved address',
      model: null,
    });
    expect(internal.hits).toEqual([]);
  });

  it('still delivers to an exempt receiver (the guard refuses what it must, not everything)', async () => {
    const project = await t.call('POST', '/projects', {
      key,
      body: { seed: web.url('guard.test', '/'), config: { webhook_url: `http://hooks.test:${hooks.port}/ok` } },
    });
    await t.call('POST', `/projects/${project.body.id}/webhooks/test`, { key });
    await until(
      async () => hooks.hits,
      (h) => h.includes('/ok'),
    );
    expect(hooks.hits).toContain('/ok');
    expect(internal.hits).toEqual([]);
  });
});
