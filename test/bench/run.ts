// `pnpm bench`: every figure beside a baseline measured in the same process and run, as a ratio.
// `pnpm bench gateway scrape` runs only those; the default is all of them.
import globalSetup from '../../libs/testkit/jest-global-setup.mjs';
import globalTeardown from '../../libs/testkit/jest-global-teardown.mjs';
import { benchBrowser } from './browser.bench.js';
import { benchContent } from './content.bench.js';
import { benchCrawl } from './crawl.bench.js';
import { benchCrawlLong } from './crawl-long.bench.js';
import { benchDelivery } from './delivery.bench.js';
import { benchDiff } from './diff.bench.js';
import { benchGateway } from './gateway.bench.js';
import { benchReplicas } from './replicas.bench.js';
import { benchScrape } from './scrape.bench.js';
import { benchSharing } from './sharing.bench.js';

const benches: Record<string, () => Promise<string>> = {
  gateway: benchGateway,
  scrape: benchScrape,
  content: benchContent,
  browser: benchBrowser,
  crawl: benchCrawl,
  delivery: benchDelivery,
  diff: benchDiff,
  replicas: benchReplicas,
  'crawl-long': benchCrawlLong,
  sharing: benchSharing,
};
const wanted = process.argv.slice(2).filter((a) => a !== '--');
/** Run only when named: half an hour or more here. */
const namedOnly = new Set(['crawl-long']);
const names = wanted.length ? wanted : Object.keys(benches).filter((n) => !namedOnly.has(n));
const unknown = names.filter((n) => !benches[n]);
if (unknown.length) throw new Error(`unknown bench ${unknown.join(', ')}; have ${Object.keys(benches).join(', ')}`);

await globalSetup();
try {
  process.stdout.write(`Tidemark benchmarks, ${new Date().toISOString()}, node ${process.version}\n`);
  for (const name of names) {
    process.stdout.write(`\n[${name}]\n${await benches[name]!()}\n`);
  }
} finally {
  await globalTeardown();
}
