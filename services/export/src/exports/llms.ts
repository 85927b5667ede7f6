/** What llms.txt says about the site: the home page's title and description. */
export interface SiteHeading {
  title: string;
  description: string | null;
}

/**
 * A usable page in llms order. `host` is '' on the site's own host (with or without www.), else
 * the page's host; `segment` is the first path segment as the URL spells it ('' at the root).
 */
export interface LlmsPage {
  url: string;
  title: string | null;
  description: string | null;
  host: string;
  segment: string;
}

/** Whitespace and line breaks collapsed: a title or description must stay on its line. */
const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

const decodeSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a stray % is shown as the URL has it
  }
};

/** A page's name where it has no title: its path and query. */
const pathOf = (url: string): string => {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
};

export const pageTitle = (page: { url: string; title: string | null }): string =>
  (page.title && oneLine(page.title)) || pathOf(page.url);

/** Link text: brackets and backslashes escaped so the text cannot end the link. */
const linkText = (s: string): string => s.replace(/[\\[\]]/g, (c) => `\\${c}`);
/** Link target: parentheses and spaces escaped so the URL cannot end the link. */
const linkTarget = (url: string): string =>
  url.replace(/[() ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The heading of a page's group; null for the site's root pages, which come first, unheaded. */
export const groupHeading = (page: Pick<LlmsPage, 'host' | 'segment'>): string | null => {
  const segment = decodeSegment(page.segment);
  if (!page.host) return segment || null;
  return segment ? `${page.host}/${segment}` : page.host;
};

/**
 * llms.txt, written a page at a time (pages arrive grouped, in order; llmstxt.org's shape):
 *
 *     # Site title
 *
 *     > Home page description
 *
 *     - [Home](https://site/): its description
 *
 *     ## docs
 *
 *     - [Intro](https://site/docs/intro): its description
 */
export class LlmsIndexWriter {
  private group: string | null = null;

  constructor(private readonly site: SiteHeading) {}

  header(): string {
    const description = this.site.description && oneLine(this.site.description);
    return `# ${oneLine(this.site.title)}\n${description ? `\n> ${description}\n` : ''}`;
  }

  page(page: LlmsPage): string {
    const key = `${page.host}\n${page.segment}`;
    let out = '';
    if (key !== this.group) {
      this.group = key;
      const heading = groupHeading(page);
      out += heading ? `\n## ${heading}\n\n` : '\n';
    }
    const description = page.description && oneLine(page.description);
    return `${out}- [${linkText(pageTitle(page))}](${linkTarget(page.url)})${description ? `: ${description}` : ''}\n`;
  }
}

/**
 * llms-full.txt, a page at a time: each page's markdown under its title and a Source: line, a
 * blank line between pages.
 */
export class LlmsFullWriter {
  private first = true;

  page(page: Pick<LlmsPage, 'url' | 'title'>, markdown: string): string {
    const sep = this.first ? '' : '\n';
    this.first = false;
    return `${sep}# ${pageTitle(page)}\n\nSource: ${page.url}\n\n${markdown.trim()}\n`;
  }
}
