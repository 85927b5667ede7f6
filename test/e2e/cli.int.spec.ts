import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Tidemark } from '@tidemark/sdk';
import { HANDBOOK, startTestWeb, treeSite, type Site, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

const run = (command: string, args: string[], env: Record<string, string>): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

/** Every page of a site answered `ms` late. */
const answeredLate = (site: Site, ms: number): Site =>
  Object.fromEntries(
    Object.entries(site).map(([path, page]) => [
      path,
      typeof page === 'function'
        ? (req: Parameters<typeof page>[0]) => ({ ...page(req), delayMs: ms })
        : { ...page, delayMs: ms },
    ]),
  );

describe('pnpm tidemark, the CLI on libs/sdk', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  let home: string;
  const handbook = (path = '/') => web.url('handbook.test', path);
  const env = () => ({ TIDEMARK_API_URL: t.apiUrl, TIDEMARK_API_KEY: key, TIDEMARK_HOME: home, LOG_LEVEL: 'warn' });
  /** The CLI as `pnpm tidemark` runs it (node with tsx), without pnpm's start-up each time. */
  const cli = (...args: string[]) => run('node', ['--import', 'tsx', 'deploy/local/src/cli.ts', ...args], env());

  beforeAll(async () => {
    web = await startTestWeb();
    // tree.test with every page answered 300 ms late: a crawl of it lasts seconds however fast the
    // fleet reads pages (a binary tree is crawled level by level), so --watch has frames to draw.
    web.addSite('slow-tree.test', answeredLate(treeSite(2000), 300));
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '50' });
    const ws = await t.createWorkspace('cli');
    key = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
    home = await mkdtemp(join(tmpdir(), 'tidemark-cli-'));
  });
  afterAll(async () => {
    await t.stop();
    await web.close();
    await rm(home, { recursive: true, force: true });
  });

  it('scrape prints the page’s markdown, or its links, or the envelope with --json', async () => {
    const md = await run(
      'pnpm',
      ['--silent', 'tidemark', 'scrape', handbook('/guides/tides'), '-f', 'markdown'],
      env(),
    );
    expect(md).toMatchObject({ code: 0, stderr: '' });
    expect(md.stdout).toMatch(/^# Tides\n/);
    const links = await cli('scrape', handbook('/guides/tides'), '-f', 'links');
    expect(links.stdout.trim().split('\n')).toContain(handbook('/guides/locks'));
    const json = JSON.parse((await cli('scrape', handbook('/guides/tides'), '--json')).stdout);
    expect(json).toMatchObject({ kind: 'scrape', status: 'done', data: [{ verdict: 'ok' }] });
  });

  it('crawl --watch off a terminal prints no progress, only the summary line', async () => {
    const res = await cli('crawl', handbook(), '--limit', '5', '--watch');
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    expect(res.stdout).toMatch(/^crawl crawl_\S+ done: 5\/5 pages · 0 queued · \d+ credits in [\d.]+ s/);
  });

  it('crawl --watch on a terminal draws a moving bar on stderr and ends with a summary line', async () => {
    // `script` runs the CLI under a pseudo-terminal, as a person's shell would.
    const command = `node --import tsx deploy/local/src/cli.ts crawl ${web.url('slow-tree.test')} --limit 60 --watch`;
    const res = await run('script', ['-q', '-e', '-c', command, '/dev/null'], { ...env(), COLUMNS: '120' });
    expect(res.code).toBe(0);
    // Each frame is drawn over the last: carriage return, erase the line (ESC [2K), the bar and text.
    const screen = res.stdout.split('\u001b[2K').join('<erase>');
    const frames = [...screen.matchAll(/\r<erase>\[([#.]+)\] crawl_\S+ {2}(\d+)\/(\d+) pages/g)];
    expect(frames.length).toBeGreaterThan(2);
    const done = frames.map((f) => Number(f[2]));
    expect(new Set(done).size).toBeGreaterThan(1);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(screen).toMatch(
      /\r<erase>crawl crawl_\S+ done: 60\/60 pages · 0 queued · \d+ credits in [\d.]+ s \(stop: limit\)\r?\n/,
    );
  });

  it('map prints one URL a line', async () => {
    const res = await cli('map', handbook());
    expect(res.code).toBe(0);
    expect(res.stdout.trim().split('\n').sort()).toEqual(HANDBOOK.pages.map((p) => handbook(p)).sort());
  });

  it('projects create, list and run --wait; changes; export streamed to a file', async () => {
    const created = JSON.parse(
      (await cli('projects', 'create', handbook(), '--name', 'Handbook', '--config', '{"max_pages": 40}', '--json'))
        .stdout,
    );
    expect(created).toMatchObject({ name: 'Handbook', schedule: 'manual' });
    const listed = await cli('projects', 'list');
    expect(listed.stdout).toContain(`${created.id}  Handbook`);

    const ran = await cli('projects', 'run', created.id, '--wait');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(
      new RegExp(
        `^run run_\\S+ done: ${HANDBOOK.pages.length + 1}/${HANDBOOK.pages.length + 1} pages .* changes: ${HANDBOOK.pages.length} added, 0 removed, 0 modified, 0 same\\n$`,
      ),
    );
    const changes = await cli('changes', created.id);
    expect(changes.stdout).toMatch(/^run run_\S+ against nothing \(first run\): 26 added/);
    expect(changes.stdout).toContain(`added      ${handbook('/guides/locks')}`);

    const file = join(home, 'llms.txt');
    const exported = await cli('export', created.id, '--dataset', 'llms', '-o', file);
    expect(exported.code).toBe(0);
    const text = await readFile(file, 'utf8');
    expect(text).toMatch(/^# Harbour Handbook\n/);
    expect(exported.stdout).toMatch(new RegExp(`^wrote [\\d.]+ KB of llms \\(run run_\\S+\\) to ${file} in`));
    expect(exported.stderr).toBe('');
  });

  it('fails with one line from the envelope and an exit code by class', async () => {
    const usage = await cli('crawl');
    expect(usage.code).toBe(2);
    const missing = await cli('changes', 'prj_nope');
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/^tidemark: project not found \[not_found, request req_\w+\]\n$/);
    const badKey = await run(
      'node',
      ['--import', 'tsx', 'deploy/local/src/cli.ts', 'projects', 'list', '--key', 'service_nope'],
      env(),
    );
    expect(badKey.code).toBe(4);
    expect(badKey.stderr.trim().split('\n')).toHaveLength(1);
    const invalid = await cli('projects', 'create', 'not a url');
    expect(invalid.code).toBe(5);
    // Ten seconds between requests to the site (its pages take a minute): the first run is still
    // going when the CLI asks, however long the CLI takes to start on a busy machine.
    const project = await new Tidemark({ apiKey: key, baseUrl: t.apiUrl }).projects.create({
      seed: handbook(),
      config: { delay: 10 },
    });
    const first = await new Tidemark({ apiKey: key, baseUrl: t.apiUrl }).runs.start(project.id);
    const busy = await cli('projects', 'run', project.id);
    if (busy.code !== 6) {
      // The first run should still be going; if it ended, say how (a CI run once saw 0 here).
      const job = await t.db.prisma.job.findFirst({ where: { runId: first.id } });
      throw new Error(
        `projects run answered ${busy.code} (${busy.stdout.trim()}); the first run: ${JSON.stringify({
          status: job?.status,
          stop: job?.stop,
          error: job?.error,
          progress: job?.progress,
          result: job?.result,
        }).slice(0, 1500)}`,
      );
    }
    expect(busy.stderr).toMatch(/\[conflict, request/);
    const unread = await cli('scrape', handbook('/nowhere'));
    expect(unread.code).toBe(11);
    expect(unread.stdout).toBe('');
    expect(unread.stderr).toMatch(/was not read: blocked \(NOT_FOUND\)/);
  });
});
