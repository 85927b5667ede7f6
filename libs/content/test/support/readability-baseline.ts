// The baseline the extraction benchmark measures Tidemark against: Mozilla Readability over a
// linkedom document, its article HTML turned into markdown by Turndown. It lives beside the
// lib's tests because @mozilla/readability and turndown are this package's dev dependencies.
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });

export function readabilityMarkdown(html: string): string {
  const { document } = parseHTML(html);
  let article: ReturnType<Readability['parse']> = null;
  try {
    article = new Readability(document as unknown as Document).parse();
  } catch {
    article = null;
  }
  if (article?.content) return turndown.turndown(article.content);
  try {
    return (document.body?.textContent ?? '').replace(/\s+/g, ' ').trim();
  } catch {
    return ''; // linkedom fails on some pages Readability has mutated: count it as no output
  }
}
