import type { browserPoolV1 } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import type { ExitRegistry } from '../exits/exit-registry.js';
import type { BrowserPool } from '../pool/browser-pool.js';
import type { RenderService } from '../render/render.service.js';

/** gRPC in: decode → render service / exit registry → reply. Errors are mapped by @tidemark/rpc. */
export const browserPoolRpc = (renderer: RenderService, exits: ExitRegistry, pool: BrowserPool) => ({
  render: async (req: browserPoolV1.RenderRequest): Promise<browserPoolV1.RenderResponse> => {
    if (!req.url) throw new ValidationError('url is required');
    return renderer.render(req);
  },
  listExits: async (_req: browserPoolV1.ListExitsRequest): Promise<browserPoolV1.ListExitsResponse> => ({
    exits: exits.list(),
  }),
  poolStatus: async (_req: browserPoolV1.PoolStatusRequest): Promise<browserPoolV1.PoolStatusResponse> => {
    const stats = pool.stats();
    return {
      queued: stats.queued,
      tabsPerBrowser: pool.tabsPerBrowser,
      browsers: stats.slots.map((s) => ({
        id: s.id,
        up: s.up,
        inFlight: s.inFlight,
        renders: s.renders,
        idleLanes: s.idleLanes,
      })),
    };
  },
});
