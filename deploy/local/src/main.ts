// `pnpm start`: the whole fleet (deploy/local/start.sh has made sure PostgreSQL, Redis and NATS
// run and the database is migrated), then a first workspace and admin key. Every service runs in
// this one process; FLEET_PROCESSES=1 runs each in a process of its own, as the Helm chart runs
// them, with FLEET_SCRAPE_REPLICAS / FLEET_CRAWL_REPLICAS workers of each. Why one process is
// the default here (start time, memory, and no faster on two cores): docs/scaling.md.
import { resolve } from 'node:path';
import { startTelemetry } from '@tidemark/telemetry';
import { readFirstKey, saveFirstKey } from './first-key.js';
import { startLocalTestWeb } from './local-test-web.js';

startTelemetry('tidemark-local');
const testWeb = await startLocalTestWeb(process.env);
Object.assign(process.env, testWeb?.env);

const replicas = (name: string) => {
  const n = Number(process.env[name] ?? 1);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of processes, 1 or more`);
  return n;
};
const inProcesses = process.env.FLEET_PROCESSES === '1';
// Only the fleet asked for is loaded: the launcher of a fleet in processes imports no service.
const fleet = inProcesses
  ? await (
      await import('./process-fleet.js')
    ).startProcessFleet(process.env, {
      replicas: { scrape: replicas('FLEET_SCRAPE_REPLICAS'), crawl: replicas('FLEET_CRAWL_REPLICAS') },
    })
  : await (await import('./fleet.js')).startFleet();
const createWorkspace = (name: string) =>
  'createWorkspace' in fleet ? fleet.createWorkspace(name) : fleet.gateway.workspaces.create(name);
const keyFile = resolve(process.env.TIDEMARK_HOME ?? '.tidemark', 'first-key');

const works = async (apiKey: string) =>
  (await fetch(`${fleet.apiUrl}/me`, { headers: { authorization: `Bearer ${apiKey}` } })).status === 200;

let first = await readFirstKey(keyFile);
if (!first || !(await works(first.apiKey))) {
  first = await createWorkspace('local');
  await saveFirstKey(keyFile, first);
}

process.stdout.write(
  [
    '',
    `Tidemark is running (${
      'processes' in fleet
        ? `${fleet.processes.length} processes, one per service and replica`
        : 'every service in one process'
    }).`,
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
