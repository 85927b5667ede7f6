import { harbourSite, startTestWeb, type TestWeb } from '@tidemark/testkit';

/**
 * The test web beside a local fleet, so a person trying `pnpm start` has sites to watch without
 * the internet: `http://harbour.test/` publishes a new edition every run (libs/testkit
 * harbour-site.ts), and the other test sites answer too. It listens on its own loopback address,
 * and only that address is let through the fetch guard (every other private address stays
 * refused). TIDEMARK_TEST_WEB=0 leaves it out.
 */
export const LOCAL_TEST_WEB_ADDRESS = '127.77.0.1';

export const startLocalTestWeb = async (
  env: Record<string, string | undefined>,
): Promise<{ web: TestWeb; env: Record<string, string> } | null> => {
  if (env.TIDEMARK_TEST_WEB === '0') return null;
  const web = await startTestWeb({ address: LOCAL_TEST_WEB_ADDRESS });
  // Reached as http://harbour.test/ (the host map gives the port), so its sitemap says so too.
  web.addSite('harbour.test', harbourSite('http://harbour.test', web.harbour));
  const join = (a: string | undefined, b: string) => (a ? `${a},${b}` : b);
  return {
    web,
    env: {
      FETCH_HOST_MAP: join(env.FETCH_HOST_MAP, web.hostMap),
      FETCH_ALLOW_NETWORKS: join(env.FETCH_ALLOW_NETWORKS, `${LOCAL_TEST_WEB_ADDRESS}/32`),
    },
  };
};
