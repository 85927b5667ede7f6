// `pnpm start`: the whole fleet in one process (deploy/local/start.sh has made sure PostgreSQL,
// Redis and NATS run and the database is migrated), then a first workspace and admin key.
import { resolve } from 'node:path';
import { startTelemetry } from '@tidemark/telemetry';
import { startFleet } from './fleet.js';
import { readFirstKey, saveFirstKey } from './first-key.js';
import { startLocalTestWeb } from './local-test-web.js';

startTelemetry('tidemark-local');
const testWeb = await startLocalTestWeb(process.env);
Object.assign(process.env, testWeb?.env);
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
    `  App:       ${fleet.webUrl}  (sign up there)`,
    `  API:       ${fleet.apiUrl}`,
    `  Docs:      ${fleet.apiUrl}/docs`,
    `  MCP:       ${fleet.agentUrl}  (agent tool server; Authorization: Bearer <key>)`,
    `  Workspace: ${first.workspaceId}`,
    `  Admin key: ${first.apiKey}`,
    '',
    `  curl -H "Authorization: Bearer ${first.apiKey}" ${fleet.apiUrl}/me`,
    ...(testWeb
      ? [
          '',
          '  Test web (local sites to watch; TIDEMARK_TEST_WEB=0 turns it off):',
          '    http://harbour.test/  changes between runs: run it twice and read the change record',
          '    http://news.test/  http://crawl.test/  http://maps.test/',
        ]
      : []),
    '',
  ].join('\n') + '\n',
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void Promise.all([fleet.stop(), testWeb?.web.close()]).then(() => process.exit(0)));
}
