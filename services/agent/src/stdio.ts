import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createLogger } from '@tidemark/telemetry';
import { loadConfig } from './config.js';
import { openConnection } from './connection.js';

/**
 * The tool server over stdio (`pnpm --silent tidemark mcp`): one connection, the key in
 * TIDEMARK_API_KEY, the API in TIDEMARK_API_URL, read-only with TIDEMARK_READ_ONLY=1. Stdout
 * carries the protocol only; logs go to stderr.
 */
export const runStdio = async (env: Record<string, string | undefined> = process.env): Promise<void> => {
  const cfg = loadConfig(env);
  const logger = createLogger('agent', cfg.LOG_LEVEL, { destination: 2 });
  if (!cfg.TIDEMARK_API_KEY) throw new Error('TIDEMARK_API_KEY is not set: the tool server acts with that key');
  const { server } = await openConnection(
    {
      apiKey: cfg.TIDEMARK_API_KEY,
      apiUrl: cfg.TIDEMARK_API_URL,
      readOnly: cfg.TIDEMARK_READ_ONLY,
      waitMaxMs: cfg.AGENT_WAIT_MAX_MS,
      pollMs: cfg.AGENT_POLL_MS,
    },
    logger,
  );
  const transport = new StdioServerTransport();
  await server.connect(transport);
  await new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.close();
};
