import { parseHTML } from 'linkedom';

/** Parses a page once; every later step works on this document. */
export function parseDocument(html: string): Document {
  return parseHTML(neutraliseCdata(html)).document as unknown as Document;
}

/**
 * Browsers read "<![CDATA[" in HTML markup as a bogus comment that ends at the next ">";
 * linkedom's parser opens a CDATA section that runs to "]]>", which can swallow a whole
 * <body> (seen on XenForo forums). Only occurrences right after a tag are touched: inside
 * scripts and JSON-LD the marker follows "//" or "/*" and is left alone.
 */
function neutraliseCdata(html: string): string {
  return html.includes('<![CDATA[') ? html.replace(/(>\s*)<!\[CDATA\[/g, '$1<!--[CDATA[-->') : html;
}
