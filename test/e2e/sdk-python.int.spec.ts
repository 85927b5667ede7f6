import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HANDBOOK, startFailureServer, startTestWeb, type FailureServer, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '../../libs/sdk-python');

/** `python3 -m unittest -v` in libs/sdk-python with `env`; answers its exit code and report. */
const unittest = (env: Record<string, string>) =>
  new Promise<{ code: number | null; report: string }>((resolve, reject) => {
    const child = spawn('python3', ['-m', 'unittest', '-v'], {
      cwd: packageDir,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let report = '';
    child.stdout.on('data', (c: Buffer) => (report += c.toString()));
    child.stderr.on('data', (c: Buffer) => (report += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, report }));
  });

describe('the Python client (libs/sdk-python), its unittest suite against the fleet and the failure server', () => {
  let web: TestWeb;
  let failures: FailureServer;
  let t: TestFleet;
  let key: string;

  beforeAll(async () => {
    web = await startTestWeb();
    failures = await startFailureServer();
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '50', DELIVERY_POLL_MS: '50' });
    const ws = await t.createWorkspace('python');
    key = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
  });
  afterAll(async () => {
    await t.stop();
    await failures.close();
    await web.close();
  });

  it('passes every test, none skipped', async () => {
    const { code, report } = await unittest({
      TIDEMARK_API_URL: t.apiUrl,
      TIDEMARK_API_KEY: key,
      TIDEMARK_FAILURE_URL: failures.apiUrl,
      TIDEMARK_TEST_SITE: web.url('handbook.test', ''),
      TIDEMARK_TEST_PAGES: String(HANDBOOK.pages.length),
      TIDEMARK_TEST_ROWS: String(HANDBOOK.pages.length + HANDBOOK.disallowed.length),
    });
    if (code !== 0) throw new Error(`python3 -m unittest failed:\n${report}`);
    expect(report).toMatch(/^OK$/m);
    expect(report).not.toMatch(/skipped/);
    expect(Number(/^Ran (\d+) tests/m.exec(report)![1])).toBeGreaterThanOrEqual(24);
  }, 300_000);
});
