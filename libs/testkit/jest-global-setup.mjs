// Jest globalSetup (plain ESM: jest loads it outside its own module system). Migrates a template
// database once per run; each test file copies it with CREATE DATABASE ... TEMPLATE
// (createTestDatabase in src/test-database.ts), which takes milliseconds.
//
// Names carry their creation time (tm_tpl_<epoch>_…, tm_t_<epoch>_…) so two runs on one machine
// never drop each other's databases: only ones older than STALE_AFTER_S (left by an interrupted
// run) are cleaned up.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const STALE_AFTER_S = 6 * 3600;

export default async function globalSetup() {
  const adminUrl = (process.env.TEST_ADMIN_DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/postgres');
  const now = Math.floor(Date.now() / 1000);
  const template = `tm_tpl_${now}_${randomBytes(3).toString('hex')}`;
  process.env.TM_TEST_TEMPLATE_DB = template;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const old = await admin.query("SELECT datname FROM pg_database WHERE datname ~ '^tm_(t|tpl)_[0-9]+_'");
    for (const { datname } of old.rows) {
      const born = Number(datname.split('_')[2]);
      if (now - born > STALE_AFTER_S) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
    await admin.query(`CREATE DATABASE "${template}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${template}`;
  execFileSync(resolve(root, 'libs/db/node_modules/.bin/prisma'), ['migrate', 'deploy'], {
    cwd: resolve(root, 'libs/db'),
    env: { ...process.env, DATABASE_URL: url.toString() },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
