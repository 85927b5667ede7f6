import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Tidemark } from '@tidemark/sdk';
import type { Logger } from '@tidemark/telemetry';
import type { Access, ReadOnlyReason } from './tools/access.js';
import type { ToolContext } from './tools/tool-context.js';
import { createToolServer } from './tools/tool-server.js';

/** The config key that switches document reading, if the API has one (issue 16 names it so). */
const DOCUMENT_KEYS = ['parse_documents'];

export interface ConnectionOptions {
  apiKey: string;
  apiUrl: string;
  /** The connection asked to be read-only (a header or query parameter, or TIDEMARK_READ_ONLY). */
  readOnly: boolean;
  waitMaxMs: number;
  pollMs: number;
}

export interface Connection {
  server: McpServer;
  access: { mode: Access; reason?: ReadOnlyReason };
}

/**
 * A connection's tool server. Its key is checked first (GET /me, so a bad key fails the
 * connection, not the first tool call): a key that may not write makes the connection
 * read-only, as does asking for it.
 */
export const openConnection = async (opts: ConnectionOptions, logger: Logger): Promise<Connection> => {
  const tm = new Tidemark({ apiKey: opts.apiKey, baseUrl: opts.apiUrl });
  const me = await tm.workspace.me();
  const access: Connection['access'] = opts.readOnly
    ? { mode: 'read-only', reason: 'asked' }
    : me.can.write
      ? { mode: 'write' }
      : { mode: 'read-only', reason: 'key' };
  let documentKey: Promise<string | null> | undefined;
  const ctx: ToolContext = {
    tm,
    waitMaxMs: opts.waitMaxMs,
    pollMs: opts.pollMs,
    documentKey: () =>
      (documentKey ??= tm.workspace
        .meta()
        .then((meta) => {
          const known = new Set(Object.values(meta.config.keys).flatMap((group) => Object.keys(group as object)));
          return DOCUMENT_KEYS.find((k) => known.has(k)) ?? null;
        })
        .catch((err: unknown) => {
          documentKey = undefined;
          throw err;
        })),
  };
  return {
    server: createToolServer(ctx, access, logger.child({ module: 'tools', workspace: me.workspace.id })),
    access,
  };
};
