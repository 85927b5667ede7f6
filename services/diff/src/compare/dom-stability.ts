/// <reference lib="dom" />
// What of an element survives a re-render: the markup comparison and selector repointing both
// ignore ids, classes, attributes and URL parameters that frameworks, CDNs and sessions mint
// anew on every response. The DOM types are used through linkedom's documents.

import { parseDocument } from '@tidemark/content';

/**
 * Parses a page or a fragment (clean HTML is a list of roots) into a document with a body. A
 * page goes through the content pipeline's parse, which gives it the HTML standard's shape
 * (linkedom alone leaves an empty body when a page omits or misplaces <html>/<head>/<body>).
 */
export function parseHtml(html: string): Document {
  const whole = /<body[\s>]/i.test(html) || /<html[\s>]/i.test(html);
  return parseDocument(whole ? html : `<!doctype html><html><head></head><body>${html}</body></html>`);
}

// Framework-generated ids: React's useId (":r1:"), Ember, Radix, Headless UI, MUI, counters.
const GENERATED_ID =
  /^(?::r[\w]*:|ember\d+|react-[\w-]*\d[\w-]*|radix-[\w:-]+|headlessui-[\w-]+|mui-\d+|uid-?\d+|id-?\d{3,})$/i;
// CSS-in-JS prefixes; state classes that scripts toggle.
const CSS_IN_JS_CLASS = /^(?:css|sc|jsx|emotion|svelte|astro|styled|chakra|mantine)-/i;
const STATE_CLASS =
  /^(?:is-|has-|js-)?(?:active|current|selected|open|opened|closed|expanded|collapsed|visible|hidden|focus(?:ed)?|hover(?:ed)?|loaded|loading|lazyload(?:ed)?|in|show|showing|fade|animated?)$/i;

/** A hash or counter inside a name: hex with digits and letters, or a long run of digits. */
function looksMinted(name: string, hexLength: number): boolean {
  if (/\d{5,}/.test(name)) return true;
  for (const run of name.match(new RegExp(`[0-9a-f]{${hexLength},}`, 'gi')) ?? []) {
    if (/\d/.test(run) && /[a-f]/i.test(run)) return true;
  }
  // CSS modules: name__hash, the hash mixing case or digits.
  const moduleHash = /__([\w-]{5})$/.exec(name);
  return moduleHash !== null && /[0-9A-Z]/.test(moduleHash[1]!);
}

export const isStableId = (id: string): boolean =>
  id.length > 0 && id.length <= 64 && !GENERATED_ID.test(id) && !looksMinted(id, 8);

const isStableClass = (name: string): boolean =>
  name.length > 0 &&
  name.length <= 48 &&
  !CSS_IN_JS_CLASS.test(name) &&
  !STATE_CLASS.test(name) &&
  !looksMinted(name, 6);

/** The element's classes that say what it is, sorted. */
export function stableClasses(el: Element): string[] {
  const value = el.getAttribute('class');
  if (!value) return [];
  return [...new Set(value.split(/\s+/).filter(isStableClass))].sort();
}

/** Attributes minted per request or session: never compared, never used in a selector. */
export const VOLATILE_ATTRIBUTE =
  /(?:^|[-_])(?:nonce|csrf|xsrf|token|session|sessid|sid|timestamp|ts|time|request-?id|cache|integrity)(?:$|[-_])|^data-(?:reactid|reactroot|v-[\w-]+|gtm[\w-]*|ga[\w-]*|analytics[\w-]*|track(?:ing)?[\w-]*)$|^(?:nonce|integrity|style|srcset|sizes|jsaction|jscontroller|jsname)$|^on/i;

const VOLATILE_PARAM =
  /^(?:sid|sessionid|session_id|jsessionid|phpsessid|token|csrf|nonce|_|cb|cachebust|ts|timestamp|v|ver|utm_\w+|fbclid|gclid|mc_eid)$/i;

/** A URL without session ids, cache busters and campaign parameters. */
export function stableUrl(value: string): string {
  const withoutPathSession = value.replace(/;jsessionid=[^?#]*/i, '');
  const query = withoutPathSession.indexOf('?');
  if (query < 0) return withoutPathSession;
  const hash = withoutPathSession.indexOf('#', query);
  const end = hash < 0 ? withoutPathSession.length : hash;
  const kept = withoutPathSession
    .slice(query + 1, end)
    .split('&')
    .filter((pair) => pair && !VOLATILE_PARAM.test(decodeSafe(pair.split('=')[0]!)));
  return withoutPathSession.slice(0, query) + (kept.length ? `?${kept.join('&')}` : '') + withoutPathSession.slice(end);
}

/** CSS.escape for identifiers (ids and class names in selectors). */
export function cssIdent(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    const code = value.charCodeAt(i);
    if (/[\w-]/.test(ch) || code >= 0x80) {
      const leadingDigit = /\d/.test(ch) && (i === 0 || (i === 1 && value[0] === '-'));
      out += leadingDigit ? `\\${code.toString(16)} ` : ch;
    } else {
      out += `\\${ch}`;
    }
  }
  return out;
}

/** A quoted CSS attribute value. */
export const cssString = (value: string): string => `"${value.replace(/["\\]/g, '\\$&').replace(/\n/g, '\\a ')}"`;

/** Collapsed text of an element. */
export const textOf = (node: Node): string => (node.textContent ?? '').replace(/\s+/g, ' ').trim();

function decodeSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
