// Creates the database named in DATABASE_URL when it does not exist yet (PostgreSQL has no
// CREATE DATABASE IF NOT EXISTS). Used by start.sh before migrations.
import pg from 'pg';

const target = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tidemark');
const name = decodeURIComponent(target.pathname.slice(1));
if (!/^[\w-]+$/.test(name)) throw new Error(`refusing odd database name "${name}"`);
const admin = new URL(target);
admin.pathname = '/postgres';
const client = new pg.Client({ connectionString: admin.toString() });
await client.connect();
try {
  const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (!rowCount) {
    await client.query(`CREATE DATABASE "${name}"`);
    process.stderr.write(`created database ${name}\n`);
  }
} finally {
  await client.end();
}
