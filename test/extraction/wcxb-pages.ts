// The WCXB development split's pages as the extraction tools read them (batch-eval.ts, and
// libs/content/scripts/train-block-model.ts): every page whose ground truth is an object, in id
// order, with its type as the benchmark names it ("category" is the collection type).
import fs from 'node:fs';
import path from 'node:path';

export const WCXB_ROOT = process.env.WCXB_ROOT ?? '/work/shared/extraction/wcxb';

export interface WcxbPage {
  id: string;
  url: string;
  type: string;
  /** The ground truth's main content (plain text). */
  ref: string;
  /** The page as fetched (gzip). */
  file: string;
}

export function wcxbDevPages(root = WCXB_ROOT): WcxbPage[] {
  const dir = path.join(root, 'dev', 'ground-truth');
  const pages: WcxbPage[] = [];
  for (const f of fs
    .readdirSync(dir)
    .filter((x) => x.endsWith('.json'))
    .sort()) {
    const d = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    const g = d.ground_truth;
    if (!g || typeof g !== 'object') continue;
    let type: string = d._internal?.page_type?.primary ?? 'article';
    if (type === 'category') type = 'collection';
    const id = f.slice(0, -5);
    pages.push({
      id,
      url: d.url ?? '',
      type,
      ref: g.main_content ?? '',
      file: path.join(root, 'dev', 'html', `${id}.html.gz`),
    });
  }
  return pages;
}
