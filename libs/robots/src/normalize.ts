/**
 * Percent-encoding normalization of RFC 9309 §2.2.2, applied alike to URL paths and to rule
 * patterns before they are compared: octets outside US-ASCII are percent-encoded (UTF-8),
 * percent-encoded unreserved characters are decoded, and every other escape keeps its encoding
 * with upper-case hex. `/foo/%62%61%7a` and `/foo/baz` compare equal; `/a%2Fb` and `/a/b` do not.
 */
const UNRESERVED = /[A-Za-z0-9\-._~]/;
const HEX = /^[0-9A-Fa-f]{2}$/;

export const normalizePath = (raw: string): string => {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '%' && HEX.test(raw.slice(i + 1, i + 3))) {
      const code = parseInt(raw.slice(i + 1, i + 3), 16);
      const decoded = String.fromCharCode(code);
      out += code < 0x80 && UNRESERVED.test(decoded) ? decoded : `%${raw.slice(i + 1, i + 3).toUpperCase()}`;
      i += 2;
    } else if (ch.charCodeAt(0) > 0x7e || ch.charCodeAt(0) < 0x21) {
      // Non-ASCII (a surrogate pair is one code point), controls and spaces: UTF-8 escapes.
      const cp = raw.codePointAt(i)!;
      const text = String.fromCodePoint(cp);
      if (cp > 0xffff) i++;
      for (const byte of Buffer.from(text, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    } else {
      out += ch;
    }
  }
  return out;
};

/** The part of a URL robots rules are matched against: path and query, "/" when empty. */
export const pathOf = (url: string | URL): string | null => {
  if (typeof url === 'string' && url.startsWith('/')) {
    const noFragment = url.split('#', 1)[0]!;
    return noFragment || '/';
  }
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return null;
  }
  return `${parsed.pathname || '/'}${parsed.search}`;
};
