// Drops this run's template database (the copies are dropped by each test file).
import pg from 'pg';

export default async function globalTeardown() {
  const template = process.env.TM_TEST_TEMPLATE_DB;
  if (!template) return;
  const admin = new pg.Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
