import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

describe('projects', () => {
  let t: TestFleet;
  let admin: string;

  beforeAll(async () => {
    t = await startTestFleet();
    const ws = await t.createWorkspace('projects');
    admin = ws.apiKey;
    // A plan whose rate this file's many calls never meet.
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
  });
  afterAll(() => t.stop());

  it('creates a project with every config key at its default, grouped', async () => {
    const res = await t.call('POST', '/projects', { key: admin, body: { seed: 'https://news.example/start#top' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^prj_/),
      name: 'news.example',
      seed: 'https://news.example/start',
      host: 'news.example',
      schedule: 'manual',
      retention: '90d',
      config: { version: 1 },
    });
    const meta = await t.call('GET', '/meta', { key: admin });
    const { version, ...groups } = res.body.config;
    expect(version).toBe(1);
    expect(groups).toEqual(meta.body.config.defaults);
    expect(Object.keys(groups)).toEqual(['scope', 'fetch', 'content', 'output', 'advanced']);
  });

  it('refuses an unknown config key by name, and a bad seed', async () => {
    const unknown = await t.call('POST', '/projects', {
      key: admin,
      body: { seed: 'https://x.example/', config: { render_jss: 'always' } },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toContain('"render_jss"');
    const inGroup = await t.call('POST', '/projects', {
      key: admin,
      body: { seed: 'https://x.example/', config: { fetch: { max_pages: 3 } } },
    });
    expect(inGroup.status).toBe(422);
    expect(inGroup.body.error).toContain('body.config.fetch');
    expect(inGroup.body.error).toContain('"max_pages"');
    const seed = await t.call('POST', '/projects', { key: admin, body: { seed: 'javascript:alert(1)' } });
    expect(seed.status).toBe(422);
    expect(seed.body.error).toMatch(/^body\.seed/);
  });

  it('keeps config.version when an identical config is saved, and moves it on a change', async () => {
    const created = await t.call('POST', '/projects', {
      key: admin,
      body: { seed: 'https://v.example/', config: { render_js: 'always', limit: 50 } },
    });
    const id = created.body.id;
    expect(created.body.config.fetch.render_js).toBe('always');
    expect(created.body.config.scope.max_pages).toBe(50);

    // The same values again, flat, by alias, in a group, or the whole fetched config sent back.
    for (const config of [
      { render_js: 'always' },
      { maxTier: 'browser' },
      { scope: { max_pages: 50 } },
      created.body.config,
    ]) {
      const res = await t.call('PATCH', `/projects/${id}`, { key: admin, body: { config } });
      expect([JSON.stringify(config).slice(0, 40), res.status, res.body.config.version]).toEqual([
        JSON.stringify(config).slice(0, 40),
        200,
        1,
      ]);
    }
    const changed = await t.call('PATCH', `/projects/${id}`, {
      key: admin,
      body: { config: { include_paths: ['/blog/**'] } },
    });
    expect(changed.body.config.version).toBe(2);
    // A partial config merges: what was set before stays.
    expect(changed.body.config.fetch.render_js).toBe('always');
    expect(changed.body.config.scope.include_paths).toEqual(['/blog/**']);
    const renamed = await t.call('PATCH', `/projects/${id}`, { key: admin, body: { name: 'Blog watch' } });
    expect(renamed.body).toMatchObject({ name: 'Blog watch', config: { version: 2 } });
    expect((await t.call('GET', `/projects/${id}`, { key: admin })).body.config.version).toBe(2);
  });

  it('refuses two spellings of one key that disagree', async () => {
    const res = await t.call('POST', '/projects', {
      key: admin,
      body: { seed: 'https://dup.example/', config: { max_pages: 5, limit: 6 } },
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/max_pages/);
  });

  it('masks chat_url, keeps it when the masked value comes back, removes it on an empty string', async () => {
    const secret = 'https://hooks.chat.example/services/T000/B000/XXXXsecretXXXX9876';
    const created = await t.call('POST', '/projects', {
      key: admin,
      body: { seed: 'https://chat.example/', config: { chat_url: secret } },
    });
    const masked = created.body.config.output.chat_url;
    expect(masked).toBe('https://hooks.chat.example/****9876');
    expect(JSON.stringify(created.body)).not.toContain('secretXXXX');
    const same = await t.call('PATCH', `/projects/${created.body.id}`, {
      key: admin,
      body: { config: { chat_url: masked } },
    });
    expect(same.body.config.version).toBe(1);
    const stored = await t.db.prisma.project.findUniqueOrThrow({ where: { id: created.body.id } });
    expect((stored.config as { output: { chat_url: string } }).output.chat_url).toBe(secret);
    const removed = await t.call('PATCH', `/projects/${created.body.id}`, {
      key: admin,
      body: { config: { chat_url: '' } },
    });
    expect(removed.body.config.output.chat_url).toBeNull();
    expect(removed.body.config.version).toBe(2);
  });

  it('pages the list with cursor, limit and a ready-made next URL', async () => {
    const ws = await t.createWorkspace('paging');
    const key = await t.createKey(ws.apiKey, { scopes: ['write'] });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await t.call('POST', '/projects', { key, body: { seed: `https://p${i}.example/` } })).body.id);
    const seen: string[] = [];
    let page = await t.call('GET', '/projects?limit=2', { key });
    for (;;) {
      seen.push(...page.body.data.map((p: { id: string }) => p.id));
      if (!page.body.next) break;
      expect(page.body.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/projects\?/);
      const res = await fetch(page.body.next, { headers: { authorization: `Bearer ${key}` } });
      page = { status: res.status, headers: res.headers, body: await res.json() };
    }
    expect(seen).toEqual([...ids].reverse());
    expect(page.body.cursor).toBeNull();
    const all = await t.call('GET', '/projects', { key });
    expect(all.body.data).toHaveLength(5);
    expect(all.body.next).toBeNull();
  });

  it('filters the list by verdict', async () => {
    const res = await t.call('GET', '/projects?v=blocked', { key: admin });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect((await t.call('GET', '/projects?v=nonsense', { key: admin })).status).toBe(400);
  });

  it('deletes a project (admin) with its runs and pages', async () => {
    const { body } = await t.call('POST', '/projects', { key: admin, body: { seed: 'https://gone.example/' } });
    const ws = await t.db.prisma.project.findUniqueOrThrow({ where: { id: body.id } });
    await t.db.prisma.run.create({ data: { id: 'run_delete_test', projectId: body.id, workspaceId: ws.workspaceId } });
    await t.db.prisma.page.create({
      data: {
        id: 'pg_delete_test',
        workspaceId: ws.workspaceId,
        runId: 'run_delete_test',
        url: 'https://gone.example/',
        verdict: 'ok',
        errorCode: 'OK',
      },
    });
    const del = await t.call('DELETE', `/projects/${body.id}`, { key: admin });
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await t.call('GET', `/projects/${body.id}`, { key: admin })).status).toBe(404);
    expect(await t.db.prisma.run.count({ where: { id: 'run_delete_test' } })).toBe(0);
    expect(await t.db.prisma.page.count({ where: { id: 'pg_delete_test' } })).toBe(0);
    expect((await t.call('DELETE', `/projects/${body.id}`, { key: admin })).status).toBe(404);
  });

  it('creates projects in a batch from a template, its site-bound keys left behind', async () => {
    const template = await t.call('POST', '/projects', {
      key: admin,
      body: {
        seed: 'https://template.example/',
        schedule: 'weekly',
        retention: '30d',
        config: {
          render_js: 'always',
          max_pages: 250,
          include_paths: ['/blog/**'],
          feeds: ['https://template.example/feed.xml'],
          url_list: ['https://template.example/extra'],
          notify_min_words: 7,
        },
      },
    });
    const res = await t.call('POST', '/projects/batch', {
      key: admin,
      body: {
        seeds: [
          'https://one.example/',
          'ftp://two.example/',
          'https://one.example/#again',
          'not a url',
          'http://three.example/x',
        ],
        template_project_id: template.body.id,
        retention: '7d',
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.map((p: { seed: string }) => p.seed)).toEqual([
      'https://one.example/',
      'http://three.example/x',
    ]);
    for (const p of res.body.data) {
      expect(p).toMatchObject({ schedule: 'weekly', retention: '7d', config: { version: 1 } });
      expect(p.config.fetch.render_js).toBe('always');
      expect(p.config.scope.max_pages).toBe(250);
      expect(p.config.output.notify_min_words).toBe(7);
      expect(p.config.scope).toMatchObject({ include_paths: [], feeds: [], url_list: [] });
    }
    expect(res.body.refused).toEqual([
      { seed: 'ftp://two.example/', reason: 'must be an http or https URL' },
      { seed: 'https://one.example/#again', reason: 'listed twice in this batch' },
      { seed: 'not a url', reason: 'not a URL' },
    ]);
    const missing = await t.call('POST', '/projects/batch', {
      key: admin,
      body: { seeds: ['https://x.example/'], template_project_id: 'prj_nope' },
    });
    expect(missing.status).toBe(404);
    expect((await t.call('POST', '/projects/batch', { key: admin, body: { seeds: [] } })).status).toBe(422);
  });

  it('applies config groups onto other projects; a target already matching keeps its version', async () => {
    const make = (seed: string, config: Record<string, unknown>) =>
      t.call('POST', '/projects', { key: admin, body: { seed, config } }).then((r) => r.body);
    const source = await make('https://source.example/', {
      render_js: 'always',
      delay: 2,
      only_main_content: false,
      include_paths: ['/docs/**'],
    });
    const a = await make('https://a.example/', { include_paths: ['/a/**'] });
    const b = await make('https://b.example/', { render_js: 'always', delay: 2 });
    const res = await t.call('POST', `/projects/${source.id}/config/apply`, {
      key: admin,
      body: { project_ids: [a.id, b.id, 'prj_nope', source.id], groups: ['fetch'] },
    });
    expect(res.status).toBe(200);
    expect(res.body.applied).toEqual([
      { projectId: a.id, version: 2, changed: true },
      { projectId: b.id, version: 1, changed: false },
    ]);
    expect(res.body.refused).toEqual([
      { projectId: 'prj_nope', reason: 'no such project' },
      { projectId: source.id, reason: 'the source itself' },
    ]);
    const after = (await t.call('GET', `/projects/${a.id}`, { key: admin })).body;
    expect(after.config.fetch).toMatchObject({ render_js: 'always', delay: 2 });
    // Only the fetch group moved, and the target's own path patterns stayed.
    expect(after.config.content.only_main_content).toBe(true);
    expect(after.config.scope.include_paths).toEqual(['/a/**']);
    const all = await t.call('POST', `/projects/${source.id}/config/apply`, {
      key: admin,
      body: { project_ids: [a.id], groups: ['all'] },
    });
    expect(all.body.applied).toEqual([{ projectId: a.id, version: 3, changed: true }]);
    const whole = (await t.call('GET', `/projects/${a.id}`, { key: admin })).body;
    expect(whole.config.content.only_main_content).toBe(false);
    expect(whole.config.scope.include_paths).toEqual(['/a/**']);
    const bad = await t.call('POST', `/projects/${source.id}/config/apply`, {
      key: admin,
      body: { project_ids: [a.id], groups: ['everything'] },
    });
    expect(bad.status).toBe(422);
  });
});
