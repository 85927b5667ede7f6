// The floor side's reading thread: what every crawled page must cost whatever carries it, as
// the scrape service's reading thread does it (parse once, the verdict's features, main content
// as markdown, links, the stored bodies encoded), with no bus, no database and no ledger around.
import { parentPort } from 'node:worker_threads';
import { extractContent, parseDocument } from '../../libs/content/src/index.js';
import { encodeBodies } from '../../libs/page-store/src/index.js';
import { pageFeatures } from '../../libs/verdict/src/index.js';

parentPort!.on('message', ({ id, url, html }: { id: number; url: string; html: string }) => {
  const doc = parseDocument(html);
  pageFeatures(doc, html);
  const content = extractContent(doc, { url, formats: ['markdown', 'links'], onlyMainContent: true }, html);
  const stored = encodeBodies({ markdown: content.markdown ?? '', links: content.links ?? [] });
  parentPort!.postMessage({ id, links: content.links ?? [], bodies: stored ?? new Uint8Array() });
});
parentPort!.postMessage({ ready: true });
