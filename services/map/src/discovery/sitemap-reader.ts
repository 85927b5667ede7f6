import { SaxesParser, type SaxesTagPlain } from 'saxes';

/** What a file turned out to be, by its root element (or its first line for a text sitemap). */
export type FileKind = 'urlset' | 'sitemapindex' | 'rss' | 'atom' | 'text';

/** One `<url>`/item (kind url) or one `<sitemap>` of an index (kind sitemap), as written. */
export interface ReadEntry {
  kind: 'url' | 'sitemap';
  loc: string;
  lastmod: string | null;
  changefreq: string | null;
}

/** Longest value kept for a loc, lastmod or changefreq; longer ones drop the entry's field. */
const MAX_VALUE_CHARS = 4096;
/**
 * Most characters the parser may take without reaching a tag boundary. saxes keeps a text or a
 * tag in memory until it ends, so this bounds what one hostile run can hold (sitemaps have
 * nothing near this long).
 */
export const MAX_RUN_CHARS = 1024 * 1024;
const SNIFF_CHARS = 64;

const ROOTS: Record<string, FileKind> = {
  urlset: 'urlset',
  sitemapindex: 'sitemapindex',
  rss: 'rss',
  RDF: 'rss',
  feed: 'atom',
};

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

const isoDate = (raw: string): string => {
  const t = Date.parse(raw);
  return Number.isNaN(t) ? raw : new Date(t).toISOString();
};

type Field = 'loc' | 'lastmod' | 'changefreq' | 'guid' | 'published';
interface Current {
  loc: string | null;
  lastmod: string | null;
  changefreq: string | null;
  guid: string | null;
  published: string | null;
}

/**
 * Reads one sitemap, sitemap index, RSS/Atom feed or text sitemap as it streams in: `write` text
 * as it arrives, take `drain()` after each write, `end()` at the end. Entries read before an
 * error are kept; `error` says why the rest was not read. DTD entities are never expanded: a
 * file that declares any is refused at its DOCTYPE (billion laughs ends there).
 */
export class SitemapReader {
  kind: FileKind | null = null;
  /** Why the file stopped being read (a sentence), or null. */
  error: string | null = null;
  private entries: ReadEntry[] = [];
  private mode: 'sniff' | 'xml' | 'text' = 'sniff';
  private head = '';
  private parser: SaxesParser | null = null;
  private stack: string[] = [];
  private sinceEvent = 0;
  // xml: the entry being read and the field whose text is being gathered
  private current: Current | null = null;
  private entryDepth = 0;
  private field: Field | null = null;
  private fieldDepth = 0;
  private fieldText = '';
  private guidIsLink = true;
  // text sitemaps
  private line = '';
  private sawLine = false;

  get stopped(): boolean {
    return this.error !== null;
  }

  drain(): ReadEntry[] {
    const out = this.entries;
    this.entries = [];
    return out;
  }

  write(text: string): void {
    if (this.stopped || text === '') return;
    if (this.mode === 'sniff') {
      // What the file is shows in its first characters: gather a few before deciding.
      this.head += text;
      if (this.head.length > MAX_RUN_CHARS)
        return this.fail(`nothing but blank space in the first ${MAX_RUN_CHARS} characters`);
      if (this.head.replace(/^\uFEFF/, '').trimStart().length < SNIFF_CHARS) return;
      text = this.sniff();
    }
    this.feed(text);
  }

  private feed(text: string): void {
    if (this.stopped) return;
    if (this.mode === 'text') return this.writeText(text);
    this.sinceEvent += text.length;
    this.parser!.write(text);
    if (!this.stopped && this.sinceEvent > MAX_RUN_CHARS)
      this.fail(`a single tag or text runs longer than ${MAX_RUN_CHARS} characters`);
  }

  /** Decides xml or text by the first characters; answers them for the chosen reader. */
  private sniff(): string {
    const body = this.head.replace(/^\uFEFF/, '');
    this.head = '';
    const first = body.trimStart();
    // A soft 404 or a home page served where a sitemap was expected.
    if (/^<(!doctype\s+html|html[\s>])/i.test(first)) {
      this.fail('not a sitemap or feed (an HTML page)');
      return '';
    }
    this.mode = first.startsWith('<') ? 'xml' : 'text';
    if (this.mode === 'xml') this.startXml();
    else this.kind = 'text';
    return body;
  }

  end(): void {
    if (this.stopped) return;
    if (this.mode === 'sniff') {
      if (this.head.trim() === '') return this.fail('empty file');
      this.feed(this.sniff());
      if (this.stopped) return;
    }
    if (this.mode === 'text') {
      this.textLine(this.line);
      if (!this.sawLine) this.fail('empty file');
      return;
    }
    this.parser!.close();
    if (!this.stopped && this.kind === null) this.fail('no root element');
  }

  private fail(reason: string): void {
    if (this.error === null) this.error = reason;
  }

  private writeText(text: string): void {
    const lines = (this.line + text).split(/\r\n|\r|\n/);
    this.line = lines.pop()!;
    for (const line of lines) this.textLine(line);
    if (this.line.length > MAX_VALUE_CHARS) this.fail(`a line runs longer than ${MAX_VALUE_CHARS} characters`);
  }

  private textLine(raw: string): void {
    if (this.stopped) return;
    const line = raw.trim();
    if (line === '') return;
    const isUrl = /^https?:\/\/\S+$/i.test(line);
    if (!this.sawLine && !isUrl) return this.fail('neither XML nor a list of URLs');
    this.sawLine = true;
    if (isUrl) this.entries.push({ kind: 'url', loc: line, lastmod: null, changefreq: null });
  }

  private startXml(): void {
    const parser = new SaxesParser({ xmlns: false, position: true });
    const seen = () => {
      this.sinceEvent = 0;
      return !this.stopped;
    };
    parser.on('error', (err) => {
      // An undefined entity (&nbsp; in a feed) is left as written; anything else ends the file.
      if (/undefined entity/i.test(err.message)) return;
      this.fail(`malformed XML: ${err.message.replace(/\.$/, '')}`);
    });
    parser.on('doctype', (doctype) => {
      if (!seen()) return;
      if (/<!ENTITY/i.test(doctype)) this.fail('declares entities in a DTD (<!ENTITY>); entities are never expanded');
    });
    parser.on('opentag', (tag) => seen() && this.open(tag));
    parser.on('closetag', () => seen() && this.close());
    parser.on('text', (t) => seen() && this.gather(t));
    parser.on('cdata', (t) => seen() && this.gather(t));
    parser.on('comment', () => seen());
    parser.on('processinginstruction', () => seen());
    this.parser = parser;
  }

  private gather(text: string): void {
    if (this.field === null) return;
    if (this.fieldText.length + text.length > MAX_VALUE_CHARS) {
      this.field = null; // an absurd value: the field is dropped, the entry may live on
      return;
    }
    this.fieldText += text;
  }

  private open(tag: SaxesTagPlain): void {
    const name = localName(tag.name);
    const parent = this.stack.at(-1);
    this.stack.push(name);
    const depth = this.stack.length;
    if (depth === 1) {
      this.kind = ROOTS[name] ?? null;
      if (!this.kind) this.fail(`not a sitemap or feed (root element <${tag.name}>)`);
      return;
    }
    const entryTag = { urlset: 'url', sitemapindex: 'sitemap', rss: 'item', atom: 'entry', text: '' }[this.kind!];
    if (!this.current) {
      const entryParent = this.kind === 'rss' ? parent === 'channel' || parent === 'RDF' : depth === 2;
      if (name === entryTag && entryParent) {
        this.current = { loc: null, lastmod: null, changefreq: null, guid: null, published: null };
        this.entryDepth = depth;
        // RSS 1.0 names the item in rdf:about.
        const about = tag.attributes['rdf:about'];
        if (this.kind === 'rss' && typeof about === 'string') this.current.guid = about;
      }
      return;
    }
    if (depth !== this.entryDepth + 1) return;
    const field = this.fieldFor(tag, name);
    if (field) {
      this.field = field;
      this.fieldDepth = depth;
      this.fieldText = '';
    }
  }

  private fieldFor(tag: SaxesTagPlain, name: string): Field | null {
    switch (this.kind) {
      case 'urlset':
      case 'sitemapindex':
        return name === 'loc' || name === 'lastmod' || name === 'changefreq' ? name : null;
      case 'rss':
        if (tag.name === 'link') return 'loc';
        if (name === 'guid') {
          this.guidIsLink = String(tag.attributes.isPermaLink ?? 'true').toLowerCase() !== 'false';
          return 'guid';
        }
        return name === 'pubDate' || name === 'date' ? 'lastmod' : null;
      case 'atom': {
        if (name === 'link') {
          const rel = String(tag.attributes.rel ?? 'alternate');
          const href = tag.attributes.href;
          if (rel === 'alternate' && typeof href === 'string' && !this.current!.loc) this.current!.loc = href;
          return null;
        }
        return name === 'updated' ? 'lastmod' : name === 'published' ? 'published' : null;
      }
      default:
        return null;
    }
  }

  private close(): void {
    const depth = this.stack.length;
    this.stack.pop();
    if (this.field && depth === this.fieldDepth) {
      const value = this.fieldText.trim();
      if (this.field === 'guid') {
        if (this.guidIsLink && value) this.current!.guid = value;
      } else if (value) {
        this.current![this.field] = value;
      }
      this.field = null;
    }
    if (this.current && depth === this.entryDepth) {
      const c = this.current;
      this.current = null;
      const feed = this.kind === 'rss' || this.kind === 'atom';
      const loc = c.loc ?? (feed && c.guid && /^https?:\/\//i.test(c.guid) ? c.guid : null);
      if (!loc) return;
      const lastmod = c.lastmod ?? c.published;
      this.entries.push({
        kind: this.kind === 'sitemapindex' ? 'sitemap' : 'url',
        loc,
        lastmod: lastmod ? (feed ? isoDate(lastmod) : lastmod).slice(0, 64) : null,
        changefreq: c.changefreq ? c.changefreq.toLowerCase().slice(0, 16) : null,
      });
    }
  }
}
