// The floor side's reading thread: what every crawled page must cost whatever carries it, as
// the scrape service's reading thread does it (parse once, the verdict's features, main content
// as markdown, links, the stored bodies encoded), with no bus, no database and no ledger around.
import { extractContent, parseDocument } from '../../libs/content/src/index.js';
import { encodeBodies } from '../../libs/page-store/src/index.js';
import { serveTasks } from '../../libs/thread-pool/src/index.js';
import { pageFeatures } from '../../libs/verdict/src/index.js';

export interface FloorTask {
  url: string;
  html: string;
}

serveTasks<FloorTask>(({ url, html }) => {
  const doc = parseDocument(html);
  pageFeatures(doc, html);
  const content = extractContent(doc, { url, formats: ['markdown', 'links'], onlyMainContent: true }, html);
  const stored = encodeBodies({ markdown: content.markdown ?? '', links: content.links ?? [] });
  return { links: content.links ?? [], bodies: stored ?? new Uint8Array() };
});
