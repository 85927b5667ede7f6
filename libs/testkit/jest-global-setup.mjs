// Jest globalSetup (plain ESM: jest loads it outside its own module system). Migrates a template
// database once per run; each test file copies it with CREATE DATABASE ... TEMPLATE
// (createTestDatabase in src/test-database.ts), which takes milliseconds.
import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export default async function globalSetup() {
  const adminUrl = (process.env.TEST_ADMIN_DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/postgres');
  const template = (process.env.TM_TEST_TEMPLATE_DB ??= 'tidemark_test_template');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    // Copies left behind by an interrupted run.
    const stale = await admin.query("SELECT datname FROM pg_database WHERE datname LIKE 'tm\\_t\\_%' OR datname = $1", [
      template,
    ]);
    for (const { datname } of stale.rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
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
