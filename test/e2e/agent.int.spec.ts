import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LIMITS, WRITE_TOOLS } from '@tidemark/agent';
import { HANDBOOK, startTestWeb, type TestWeb } from '@tidemark/testkit';
import { CONTENT_TYPES, tidePdf } from '../support/documents.js';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

const SPEC_TOOLS = [
  'scrape_urls',
  'extract_url',
  'map_site',
  'crawl_site',
  'keep_crawl_as_project',
  'describe_project_config',
  'list_projects',
  'get_project',
  'create_project',
  'update_project',
  'start_run',
  'list_pages',
  'get_page',
  'get_changes',
  'search_pages',
  'recrawl_pages',
  'get_job',
];

interface Result {
  isError?: boolean;
  structuredContent?: any;
  content: { type: string; text?: string }[];
}

describe('the agent tool server, over stdio and Streamable HTTP, with the SDK’s own client', () => {
  let web: TestWeb;
  let t: TestFleet;
  let adminKey: string;
  let readKey: string;
  const clients: Client[] = [];
  const handbook = (path = '/') => web.url('handbook.test', path);

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '50', AGENT_POLL_MS: '200' });
    const ws = await t.createWorkspace('agent');
    adminKey = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
    readKey = await t.createKey(adminKey, { scopes: ['read'] });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await t.stop();
    await web.close();
  });

  const overHttp = async (key: string, opts: { readOnly?: 'header' | 'query' } = {}) => {
    const url = new URL(t.fleet.agentUrl);
    if (opts.readOnly === 'query') url.searchParams.set('read_only', '1');
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (opts.readOnly === 'header') headers['x-tidemark-read-only'] = '1';
    const client = new Client({ name: 'tidemark-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    clients.push(client);
    return client;
  };
  /** `pnpm --silent tidemark mcp`, exactly as a user's MCP client would start it. */
  const overStdio = async (key: string, extraEnv: Record<string, string> = {}) => {
    const client = new Client({ name: 'tidemark-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: 'pnpm',
        args: ['--silent', 'tidemark', 'mcp'],
        cwd: root,
        env: {
          ...(process.env as Record<string, string>),
          TIDEMARK_API_KEY: key,
          TIDEMARK_API_URL: t.apiUrl,
          AGENT_POLL_MS: '200',
          LOG_LEVEL: 'warn',
          ...extraEnv,
        },
        stderr: 'pipe',
      }),
    );
    clients.push(client);
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as Result;
  /** The JSON text a client that reads only text gets is the structured result. */
  const body = (r: Result) => {
    expect(r.content[0]!.type).toBe('text');
    expect(JSON.parse(r.content[0]!.text!)).toEqual(r.structuredContent);
    return r.structuredContent;
  };

  describe.each([
    ['stdio', () => overStdio(adminKey)],
    ['Streamable HTTP', () => overHttp(adminKey)],
  ])('over %s', (_transport, connect) => {
    let client: Client;
    beforeAll(async () => {
      client = await connect();
    }, 60_000);

    it('lists the spec’s 17 tools, each described for a model to choose by', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name).sort()).toEqual([...SPEC_TOOLS].sort());
      for (const tool of tools) {
        expect(tool.description!.length).toBeGreaterThan(80);
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.annotations?.readOnlyHint).toBe(!WRITE_TOOLS.has(tool.name));
      }
      const crawl = tools.find((x) => x.name === 'crawl_site')!;
      expect(Object.keys(crawl.inputSchema.properties!)).toEqual(
        expect.arrayContaining(['url', 'limit', 'max_depth', 'include_paths']),
      );
      expect(crawl.inputSchema.required).toEqual(['url']);
    });

    it('maps the site: every URL its sitemap declares', async () => {
      const res = body(await call(client, 'map_site', { url: handbook() }));
      expect(res).toMatchObject({ kind: 'map', status: 'done' });
      expect(res.urls.map((u: { url: string }) => u.url).sort()).toEqual(HANDBOOK.pages.map((p) => handbook(p)).sort());
    });

    it('crawls, then get_job shapes the pages: an index with link counts and an excerpt within budget', async () => {
      const started = body(await call(client, 'crawl_site', { url: handbook(), limit: 50 }));
      expect(started).toMatchObject({ kind: 'crawl' });
      expect(started.id).toMatch(/^crawl_/);
      let job: any;
      for (let i = 0; i < 300; i++) {
        job = body(await call(client, 'get_job', { kind: 'crawl', id: started.id }));
        if (job.status === 'done') break;
        await new Promise((r) => setTimeout(r, 300));
      }
      expect(job.status).toBe('done');
      // The index: every page read, with its link count instead of its links.
      expect(job.pages).toHaveLength(HANDBOOK.pages.length + HANDBOOK.disallowed.length);
      expect(job.pages.length).toBeLessThanOrEqual(LIMITS.indexPages);
      const home = job.pages.find((p: any) => p.url === handbook());
      expect(home).toMatchObject({ verdict: 'ok', title: 'Harbour Handbook' });
      expect(home.links).toBeGreaterThan(25);
      expect(job.pages.find((p: any) => p.url === handbook('/account'))).toMatchObject({ verdict: 'robots' });
      // The excerpt: whole pages while the budget lasts; the site's markdown is far larger.
      const chars = job.excerpt.reduce((n: number, e: any) => n + e.markdown.length, 0);
      expect(chars).toBe(job.excerptChars);
      expect(chars).toBeLessThanOrEqual(LIMITS.excerptBudget);
      expect(chars).toBeGreaterThan(LIMITS.excerptBudget * 0.9);
      expect(job.excerpt.length).toBeLessThanOrEqual(LIMITS.excerptPages);
      expect(job.excerpt.length).toBeLessThan(job.pages.length);
      expect(job.excerpt.slice(0, -1).every((e: any) => !e.truncated)).toBe(true);
      expect(job.cursor).toBeNull();
      // Nowhere a list of links.
      expect(JSON.stringify(job)).not.toMatch(/"links":\[/);

      // One page in full: each body up to 12,000 characters.
      const one = body(
        await call(client, 'get_job', { kind: 'crawl', id: started.id, url: handbook('/reference/bylaws') }),
      );
      expect(one.page.markdown).toHaveLength(LIMITS.bodyChars);
      expect(one.page.truncated.fullLength.markdown).toBeGreaterThan(LIMITS.bodyChars);
      expect(one.page.linkCount).toBeGreaterThan(25);
      expect(one.page.url).toBe(handbook('/reference/bylaws'));
    });

    it('answers the API’s error envelope as a tool error', async () => {
      const res = await call(client, 'get_project', { project_id: 'p_nope' });
      expect(res.isError).toBe(true);
      expect(body(res)).toMatchObject({ code: 'not_found', request_id: expect.any(String) });
    });
  });

  it('start_run with wait returns the run’s change record', async () => {
    const client = await overHttp(adminKey);
    const project = body(
      await call(client, 'create_project', { seed: handbook(), name: 'Handbook', config: { max_pages: 40 } }),
    );
    const progress: number[] = [];
    const res = (await client.callTool(
      { name: 'start_run', arguments: { project_id: project.id, wait: true } },
      undefined,
      {
        timeout: 120_000,
        onprogress: (p) => progress.push(p.progress),
      },
    )) as Result;
    const out = body(res);
    expect(out.run).toMatchObject({ projectId: project.id, status: 'done' });
    expect(out.changes).toMatchObject({ runId: out.run.id, counts: { added: HANDBOOK.pages.length } });
    expect(out.changes.entries.length).toBeLessThanOrEqual(LIMITS.indexPages);
    expect(progress.length).toBeGreaterThan(0);

    const changes = body(await call(client, 'get_changes', { project_id: project.id }));
    expect(changes.runId).toBe(out.run.id);
    const pages = body(await call(client, 'list_pages', { project_id: project.id }));
    expect(pages.pages.length).toBe(HANDBOOK.pages.length + HANDBOOK.disallowed.length);
    const page = body(await call(client, 'get_page', { project_id: project.id, url: handbook('/guides/locks') }));
    expect(page.markdown).toContain('# Locks');
    const found = body(await call(client, 'search_pages', { project_id: project.id, q: '"Harbour Handbook"' }));
    expect(found.matches.length).toBeGreaterThan(0);
  });

  it('scrapes one page and a batch, extracts fields, keeps a crawl, updates a project and re-crawls pages', async () => {
    const client = await overHttp(adminKey);
    const one = body(await call(client, 'scrape_urls', { urls: [handbook('/reference/bylaws')] }));
    expect(one).toMatchObject({ kind: 'scrape', status: 'done', page: { verdict: 'ok' } });
    expect(one.page.markdown).toHaveLength(LIMITS.bodyChars);
    expect(one.page.linkCount).toBeGreaterThan(25);
    expect(one.creditsUsed).toBeGreaterThan(0);

    const urls = HANDBOOK.pages.slice(0, 12).map((p) => handbook(p));
    const batch = body(await call(client, 'scrape_urls', { urls, parse_documents: true }));
    expect(batch).toMatchObject({ kind: 'scrape', status: 'done' });
    expect(batch.pages.map((p: { url: string }) => p.url).sort()).toEqual([...urls].sort());
    expect(batch.excerptChars).toBeLessThanOrEqual(LIMITS.excerptBudget);
    expect(batch.excerpt.length).toBeGreaterThan(0);
    // GET /meta lists the config key parse_documents (issue 16): forwarded, with nothing to note.
    expect(batch.notes).toBeUndefined();

    const extracted = body(
      await call(client, 'extract_url', {
        url: handbook('/reference/fees'),
        config: { fields: { heading: 'h1', cells: { selector: 'td', all: true } } },
      }),
    );
    expect(extracted.page.fields.heading).toBe('Fees reference');
    expect(extracted.page.fields.cells.length).toBeGreaterThan(10);
    expect(extracted.evidence).toMatchObject({ verdict: 'ok' });

    const crawl = body(await call(client, 'crawl_site', { url: handbook('/guides/'), limit: 3, wait: true }));
    expect(crawl).toMatchObject({ kind: 'crawl', status: 'done' });
    expect(crawl.pages).toHaveLength(3);
    const kept = body(
      await call(client, 'keep_crawl_as_project', { crawl_id: crawl.id, name: 'Guides', schedule: 'weekly' }),
    );
    expect(kept).toMatchObject({ name: 'Guides', schedule: 'weekly' });
    const updated = body(
      await call(client, 'update_project', { project_id: kept.projectId, config: { max_pages: 7 } }),
    );
    expect(updated.config.scope.max_pages).toBe(7);
    const unknown = await call(client, 'update_project', { project_id: kept.projectId, config: { max_pagez: 7 } });
    expect(unknown.isError).toBe(true);
    expect(body(unknown)).toMatchObject({ code: 'validation', error: expect.stringContaining('max_pagez') });
    const recrawl = body(
      await call(client, 'recrawl_pages', { project_id: kept.projectId, urls: [handbook('/guides/')] }),
    );
    expect(recrawl.run).toMatchObject({ projectId: kept.projectId, trigger: expect.any(String) });
    // Let the re-crawl end here, not during the tests after this one.
    for (let i = 0; i < 300; i++) {
      const run = await t.call('GET', `/projects/${kept.projectId}/runs/${recrawl.run.id}`, { key: adminKey });
      if (!['queued', 'running'].includes(run.body.status)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  it('passes parse_documents through to document reading: a PDF read, or its bytes’ metadata only', async () => {
    web.addSite('papers.handbook.test', { '/tides.pdf': { type: CONTENT_TYPES.pdf, body: await tidePdf() } });
    const pdf = web.url('papers.handbook.test', '/tides.pdf');
    const client = await overHttp(adminKey);
    const read = body(await call(client, 'scrape_urls', { urls: [pdf], parse_documents: true }));
    expect(read.page).toMatchObject({
      verdict: 'ok',
      method: 'http',
      head: { document: { type: 'pdf', parsed: true } },
    });
    expect(read.page.markdown).toMatch(/^# Tide tables$/m);
    expect(read.notes).toBeUndefined();
    const bytesOnly = body(await call(client, 'scrape_urls', { urls: [pdf], parse_documents: false }));
    expect(bytesOnly.page).toMatchObject({ words: 0, head: { document: { type: 'pdf', parsed: false } } });
    expect(bytesOnly.page.warnings.join(' ')).toMatch(/parse_documents is false/);
  });

  describe('a connection approved read-only', () => {
    const refused = (r: Result) => {
      expect(r.isError).toBe(true);
      expect(body(r)).toMatchObject({ code: 'read_only', error: expect.stringContaining('reconnect') });
    };
    let projectId: string;
    beforeAll(async () => {
      const res = await t.call('POST', '/projects', { key: adminKey, body: { seed: handbook(), name: 'Read only' } });
      projectId = res.body.id;
    });

    it.each([
      ['an HTTP connection that asked (header)', () => overHttp(adminKey, { readOnly: 'header' })],
      ['an HTTP connection that asked (query parameter)', () => overHttp(adminKey, { readOnly: 'query' })],
      ['an HTTP connection with a read-scope key', () => overHttp(readKey)],
      ['a stdio connection with TIDEMARK_READ_ONLY=1', () => overStdio(adminKey, { TIDEMARK_READ_ONLY: '1' })],
    ])(
      '%s: read_only from crawl_site, results from list_projects',
      async (_what, connect) => {
        const client = await connect();
        // A host of its own: nothing else in this file fetches it, so no hit means nothing was fetched.
        refused(await call(client, 'crawl_site', { url: web.url('read-only.handbook.test') }));
        const listed = body(await call(client, 'list_projects'));
        expect(listed.projects.map((p: { id: string }) => p.id)).toContain(projectId);
        expect(web.hits.filter((h) => h.host === 'read-only.handbook.test')).toEqual([]);
      },
      60_000,
    );

    it('refuses exactly the nine tools that reach sites or alter the workspace', async () => {
      const client = await overHttp(adminKey, { readOnly: 'header' });
      const args: Record<string, Record<string, unknown>> = {
        scrape_urls: { urls: [handbook()] },
        extract_url: { url: handbook() },
        map_site: { url: handbook() },
        crawl_site: { url: handbook() },
        keep_crawl_as_project: { crawl_id: 'crawl_x' },
        create_project: { seed: handbook() },
        update_project: { project_id: projectId, name: 'x' },
        start_run: { project_id: projectId },
        recrawl_pages: { project_id: projectId, urls: [handbook()] },
      };
      expect(Object.keys(args).sort()).toEqual([...WRITE_TOOLS].sort());
      for (const [name, a] of Object.entries(args)) refused(await call(client, name, a));
      const project = body(await call(client, 'get_project', { project_id: projectId }));
      expect(project.name).toBe('Read only');
      const config = body(await call(client, 'describe_project_config'));
      expect(config.groups.scope.max_pages).toMatchObject({ default: 1000 });
    });
  });

  describe('HTTP connections', () => {
    const post = (headers: Record<string, string>, payload: unknown) =>
      fetch(t.fleet.agentUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(payload),
      });
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };

    it('refuses a connection without a key, or with a bad one, in the envelope', async () => {
      const none = await post({}, initialize);
      expect(none.status).toBe(401);
      expect(await none.json()).toMatchObject({ code: 'unauthorized' });
      const bad = await post({ authorization: 'Bearer service_nope' }, initialize);
      expect(bad.status).toBe(401);
      expect(await bad.json()).toMatchObject({ code: 'unauthorized' });
    });

    it('holds a session to the key that opened it', async () => {
      const opened = await post({ authorization: `Bearer ${adminKey}` }, initialize);
      expect(opened.status).toBe(200);
      const session = opened.headers.get('mcp-session-id')!;
      await opened.text();
      const other = await post(
        { authorization: `Bearer ${readKey}`, 'mcp-session-id': session, 'mcp-protocol-version': '2025-03-26' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      );
      expect(other.status).toBe(401);
      expect(await other.json()).toMatchObject({ code: 'unauthorized' });
    });
  });
});
