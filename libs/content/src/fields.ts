import fontoxpath from 'fontoxpath';
import type { FieldSpec } from './types.js';
import { absoluteOrSame } from './urls.js';

export interface FieldValues {
  fields: Record<string, string | string[] | null>;
  fieldErrors: Record<string, string>;
}

const XHTML = 'http://www.w3.org/1999/xhtml';
const URL_ATTRS = new Set(['href', 'src', 'action', 'poster', 'data-src', 'cite']);

/** Reads user-defined fields: CSS selectors, or XPath when the selector starts with "/" or "(". */
export function readFields(doc: Document, specs: Record<string, string | FieldSpec>, url: string): FieldValues {
  const out: FieldValues = { fields: {}, fieldErrors: {} };
  for (const [name, raw] of Object.entries(specs)) {
    const spec: FieldSpec = typeof raw === 'string' ? { selector: raw } : raw;
    try {
      const nodes = isXPath(spec.selector) ? xpathNodes(doc, spec.selector) : cssNodes(doc, spec);
      const values = nodes.map((n) => valueOf(n, spec.attr, url)).filter((v): v is string => v !== null);
      out.fields[name] = spec.all ? values : (values[0] ?? null);
    } catch (err) {
      out.fields[name] = null;
      out.fieldErrors[name] = `invalid ${isXPath(spec.selector) ? 'XPath' : 'CSS'} selector: ${firstLine(err)}`;
    }
  }
  return out;
}

const isXPath = (selector: string): boolean => /^\s*[/(]/.test(selector);
// fontoxpath puts the query and a caret first; the line naming the error says more.
const firstLine = (err: unknown): string => {
  const lines = String(err instanceof Error ? err.message : err)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines.find((l) => /^Error:/.test(l)) ?? lines[0] ?? 'unknown error').replace(/^Error:\s*/, '');
};

function cssNodes(doc: Document, spec: FieldSpec): Node[] {
  if (spec.all) return Array.from(doc.querySelectorAll(spec.selector));
  const one = doc.querySelector(spec.selector);
  return one ? [one] : [];
}

function xpathNodes(doc: Document, selector: string): Node[] {
  const result = fontoxpath.evaluateXPath(
    selector,
    doc,
    linkedomFacade,
    null,
    fontoxpath.evaluateXPath.ALL_RESULTS_TYPE,
    // Unprefixed names in an HTML page mean XHTML elements, as in a browser's document.evaluate.
    { namespaceResolver: (prefix: string) => (prefix === '' ? XHTML : null) },
  ) as unknown[];
  // Atomic results (strings, numbers from text() or count()) are wrapped as text so one path serves both.
  return result.map((r) => (isNode(r) ? r : ({ nodeType: 3, textContent: String(r) } as unknown as Node)));
}

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && 'nodeType' in v;

function valueOf(node: Node, attr: string | undefined, url: string): string | null {
  if (node.nodeType === 2) return absolutize((node as Attr).name, (node as Attr).value, url);
  if (attr) {
    const v = node.nodeType === 1 ? (node as Element).getAttribute(attr) : null;
    return v === null ? null : absolutize(attr, v, url);
  }
  return (node.textContent ?? '').replace(/\s+/g, ' ').trim();
}

const absolutize = (attr: string, value: string, url: string): string =>
  URL_ATTRS.has(attr.toLowerCase()) ? absoluteOrSame(value, url) : value.trim();

/**
 * fontoxpath walks the DOM through this facade. linkedom's own sibling links leave the
 * doctype without a parent or next sibling, so from the document node nothing but the doctype
 * is reachable; the facade answers from childNodes instead.
 */
const parentOf = (n: Node): Node | null => n.parentNode ?? (n.nodeType === 10 ? n.ownerDocument : null);
const siblingsOf = (n: Node): Node[] => {
  const p = parentOf(n);
  return p ? Array.from(p.childNodes) : [];
};
const linkedomFacade = {
  getAllAttributes: (n: Element) => Array.from(n.attributes ?? []),
  getAttribute: (n: Element, name: string) => n.getAttribute(name),
  getChildNodes: (n: Node) => Array.from(n.childNodes ?? []),
  getData: (n: Attr | CharacterData) => ('value' in n ? n.value : n.data) ?? '',
  getFirstChild: (n: Node) => n.childNodes?.[0] ?? null,
  getLastChild: (n: Node) => n.childNodes?.[n.childNodes.length - 1] ?? null,
  getNextSibling: (n: Node) => {
    if (n.parentNode && n.parentNode.nodeType !== 9) return n.nextSibling;
    const sibs = siblingsOf(n);
    return sibs[sibs.indexOf(n) + 1] ?? null;
  },
  getPreviousSibling: (n: Node) => {
    if (n.parentNode && n.parentNode.nodeType !== 9) return n.previousSibling;
    const sibs = siblingsOf(n);
    return sibs[sibs.indexOf(n) - 1] ?? null;
  },
  getParentNode: parentOf,
};
