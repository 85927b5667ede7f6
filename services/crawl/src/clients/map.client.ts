import { mapSourceEnum, mapV1, sitemapModeEnum, type SitemapModeName } from '@tidemark/contracts';
import { connectClient } from '@tidemark/rpc';
import type { DiscoveryPort } from '../crawl/engine/discovery-port.js';

/** A discovery may list up to 50,000 URLs: larger than gRPC's default 4 MB message. */
const BIG_MESSAGES = { 'grpc.max_receive_message_length': 64 * 1024 * 1024 };

/** The map service as crawl reaches it: robots.txt, sitemaps and feeds of a site (MapService.Discover). */
export const mapClient = (address: string): DiscoveryPort & { close(): void } => {
  const map = connectClient(mapV1.MapServiceClient, address, 'map', BIG_MESSAGES);
  return {
    discover: async (req) => {
      const res = await map.call(
        'discover',
        { ...req, sitemapMode: sitemapModeEnum.toProto(req.sitemapMode as SitemapModeName) },
        req.timeoutMs + 10_000,
      );
      return {
        entries: res.entries.map((e) => ({ url: e.url, source: mapSourceEnum.fromProto(e.source), file: e.file })),
        robotsTxt: res.robotsTxt,
        robotsStatus: res.robotsStatus,
        creditsUsed: res.creditsUsed,
        errors: res.errors.map((e) => ({ file: e.file, reason: e.reason })),
      };
    },
    close: () => map.close(),
  };
};
