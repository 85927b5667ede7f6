// `pnpm tidemark`: the admin CLI. It talks to the database and NATS directly, as an operator
// would, so it works before any key exists.
import { parseArgs } from 'node:util';
import * as gateway from '@tidemark/gateway';
import { createLogger } from '@tidemark/telemetry';

const usage = `usage:
  pnpm tidemark workspace create --name NAME [--json]   a workspace with an admin key (shown once)`;

const main = async (argv: string[]): Promise<number> => {
  const [noun, verb, ...rest] = argv;
  if (noun === 'workspace' && verb === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: { name: { type: 'string' }, json: { type: 'boolean', default: false } },
    });
    const name = values.name?.trim();
    if (!name) {
      process.stderr.write(`--name is required\n${usage}\n`);
      return 2;
    }
    const cfg = gateway.loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
    const app = await gateway.buildApp(cfg, { logger: createLogger('cli', cfg.LOG_LEVEL) });
    try {
      const created = await app.workspaces.create(name);
      process.stdout.write(
        values.json
          ? `${JSON.stringify(created)}\n`
          : `workspace ${created.workspaceId}\nadmin key ${created.apiKey}  (shown once; keep it)\n`,
      );
      return 0;
    } finally {
      await app.stop();
    }
  }
  process.stderr.write(`${usage}\n`);
  return noun === undefined || noun === 'help' || noun === '--help' ? 0 : 2;
};

process.exitCode = await main(process.argv.slice(2));
