// `pnpm start`: the whole fleet in one process (deploy/local/start.sh has made sure PostgreSQL,
// Redis and NATS run and the database is migrated), then a first workspace and admin key.
import { resolve } from 'node:path';
import { startTelemetry } from '@tidemark/telemetry';
import { startFleet } from './fleet.js';
import { readFirstKey, saveFirstKey } from './first-key.js';

startTelemetry('tidemark-local');
const fleet = await startFleet();
const keyFile = resolve(process.env.TIDEMARK_HOME ?? '.tidemark', 'first-key');

const works = async (apiKey: string) =>
  (await fetch(`${fleet.apiUrl}/me`, { headers: { authorization: `Bearer ${apiKey}` } })).status === 200;

let first = await readFirstKey(keyFile);
if (!first || !(await works(first.apiKey))) {
  first = await fleet.gateway.workspaces.create('local');
  await saveFirstKey(keyFile, first);
}

process.stdout.write(
  [
    '',
    'Tidemark is running.',
    `  API:       ${fleet.apiUrl}`,
    `  Docs:      ${fleet.apiUrl}/docs`,
    `  Workspace: ${first.workspaceId}`,
    `  Admin key: ${first.apiKey}`,
    '',
    `  curl -H "Authorization: Bearer ${first.apiKey}" ${fleet.apiUrl}/me`,
    '',
  ].join('\n') + '\n',
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void fleet.stop().then(() => process.exit(0)));
}
