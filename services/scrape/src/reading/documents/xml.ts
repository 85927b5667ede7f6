/// <reference lib="dom" />
// @xmldom/xmldom answers the standard DOM interfaces; the reference makes their types available.
import { DOMParser } from '@xmldom/xmldom';

export type XmlElement = Element;

/** Parses a part of a document; malformed XML reads as far as it goes (errors are not thrown). */
export const parseXml = (xml: string): XmlElement | null => {
  const noop = () => undefined;
  const doc = new DOMParser({ errorHandler: { warning: noop, error: noop, fatalError: noop } }).parseFromString(
    xml || '<empty/>',
    'text/xml',
  );
  return (doc?.documentElement as XmlElement | null) ?? null;
};

/** Element children of a node (by qualified name when given). */
export const children = (el: XmlElement, name?: string): XmlElement[] => {
  const out: XmlElement[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling)
    if (n.nodeType === 1 && (!name || (n as XmlElement).nodeName === name)) out.push(n as XmlElement);
  return out;
};

/** Descendants by qualified name, in document order. */
export const all = (el: XmlElement | null, name: string): XmlElement[] =>
  el ? Array.from(el.getElementsByTagName(name) as unknown as ArrayLike<XmlElement>) : [];

export const first = (el: XmlElement | null, name: string): XmlElement | null => all(el, name)[0] ?? null;

/** The text of an element with its whitespace collapsed. */
export const textOf = (el: XmlElement | null): string => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

/** Dublin Core metadata (docProps/core.xml of OOXML, meta.xml of ODF). */
export const coreMeta = (root: XmlElement | null) => ({
  title: textOf(first(root, 'dc:title')) || null,
  author: textOf(first(root, 'dc:creator')) || textOf(first(root, 'meta:initial-creator')) || null,
  subject: textOf(first(root, 'dc:subject')) || textOf(first(root, 'dc:description')) || null,
  language: textOf(first(root, 'dc:language')) || null,
  created: textOf(first(root, 'dcterms:created')) || textOf(first(root, 'meta:creation-date')) || null,
  modified: textOf(first(root, 'dcterms:modified')) || textOf(first(root, 'dc:date')) || null,
});
