// The HTML node-html-markdown is fed. NHM parses its input again, so the main content is
// re-serialised with only what the markdown needs: no class soup, data-* or aria-*, and
// <span>s unwrapped. On WCXB pages this shrinks the input several times over.

const KEEP_ATTRS: Record<string, readonly string[]> = {
  a: ['href', 'title'],
  img: ['src', 'alt', 'title'],
  td: ['colspan', 'rowspan'],
  th: ['colspan', 'rowspan'],
  ol: ['start'],
  pre: ['class'],
  code: ['class'],
};
const VOID = new Set(['area', 'br', 'col', 'hr', 'img', 'source', 'track', 'wbr']);
const UNWRAP = new Set(['span', 'font', 'small', 'big', 'abbr', 'time', 'label', 'bdi', 'bdo', 'data', 'mark']);

const escapeText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

export function compactHtml(roots: Element[]): string {
  const out: string[] = [];
  const visit = (el: Element): void => {
    const tag = el.localName;
    const unwrap = UNWRAP.has(tag);
    if (!unwrap) {
      let open = `<${tag}`;
      for (const name of KEEP_ATTRS[tag] ?? []) {
        const v = el.getAttribute(name);
        if (v !== null) open += ` ${name}="${escapeAttr(v)}"`;
      }
      out.push(`${open}>`);
      if (VOID.has(tag)) return;
    }
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3) out.push(escapeText((n as Text).data));
      else if (n.nodeType === 1) visit(n as Element);
    }
    if (!unwrap) out.push(`</${tag}>`);
  };
  for (const root of roots) visit(root);
  return out.join('');
}
