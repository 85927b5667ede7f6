import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'tidemark_session';

/** The session token a browser sent, if any (no cookie library: one name is all we read). */
export const sessionToken = (req: Request): string | undefined => {
  const header = req.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
};

/** How session cookies are set: for how long, and whether always `Secure` (production). */
export interface CookieOptions {
  ttlMs: number;
  secure: boolean;
}

/**
 * HttpOnly (scripts cannot read it), SameSite=Lax (another site's form or script cannot send it
 * with a POST), Secure in production, and elsewhere whenever the request came over https (as
 * the gateway sees it: X-Forwarded-Proto counts only from the trusted proxy hops).
 */
export const setSessionCookie = (req: Request, res: Response, token: string, opts: CookieOptions): void => {
  const attrs = [
    `${SESSION_COOKIE}=${token}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${Math.floor(opts.ttlMs / 1000)}`,
  ];
  if (opts.secure || req.secure) attrs.push('Secure');
  res.append('Set-Cookie', attrs.join('; '));
};

export const clearSessionCookie = (req: Request, res: Response, opts: CookieOptions): void => {
  const attrs = [`${SESSION_COOKIE}=`, 'Path=/', 'HttpOnly', 'SameSite=Lax', 'Max-Age=0'];
  if (opts.secure || req.secure) attrs.push('Secure');
  res.append('Set-Cookie', attrs.join('; '));
};
