import { parseArgs } from 'node:util';
import { createLogger } from '@tidemark/telemetry';
import { UsageError } from '../exit-codes.js';

export const workspaceUsage =
  'workspace create --name NAME [--json]   a workspace with an admin key (operator; no key needed)';

/**
 * `workspace create`: the operator's command. It talks to the database and NATS directly, as an
 * operator would, so it works before any key exists.
 */
export const workspaceCommand = async (args: string[]): Promise<number> => {
  const [verb, ...rest] = args;
  if (verb !== 'create') throw new UsageError(`usage: ${workspaceUsage}`);
  let values: { name?: string; json?: boolean };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { name: { type: 'string' }, json: { type: 'boolean', default: false } },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const name = values.name?.trim();
  if (!name) throw new UsageError(`--name is required\nusage: ${workspaceUsage}`);
  const gateway = await import('@tidemark/gateway');
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
};
