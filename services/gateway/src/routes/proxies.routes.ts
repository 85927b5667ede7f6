import { browserPoolV1 } from '@tidemark/contracts';
import type { RpcClient } from '@tidemark/rpc';
import { z } from 'zod';
import { defineRoute } from '../http/route.js';

const exitSchema = z
  .object({
    id: z.string(),
    url: z.string().describe('credentials masked'),
    status: z.enum(['ok', 'burned', 'dead']),
    successRate: z.number(),
    parity: z.number().describe('share of checks where the page through this exit matched a direct read'),
    requests: z.number().int(),
    failures: z.number().int(),
    bytes: z.number().int(),
    hostsAdopted: z.array(z.string()),
  })
  .meta({ id: 'Exit' });

export const proxyRoutes = (pool: RpcClient<browserPoolV1.BrowserPoolServiceClient>) => [
  defineRoute({
    method: 'get',
    path: '/me/proxies',
    tag: 'Workspace',
    summary: "The deployment's residential exits and their health",
    scope: 'read',
    responses: { 200: { description: 'exits', schema: z.object({ data: z.array(exitSchema) }) } },
    handler: async () => {
      const res = await pool.call('listExits', {});
      return {
        status: 200,
        body: {
          data: res.exits.map((e) => ({
            id: e.id,
            url: e.url,
            status: e.status as 'ok' | 'burned' | 'dead',
            successRate: e.successRate,
            parity: e.parity,
            requests: e.requests,
            failures: e.failures,
            bytes: e.bytes,
            hostsAdopted: e.hostsAdopted,
          })),
        },
      };
    },
  }),
];
