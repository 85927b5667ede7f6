import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * What the app may load: its own scripts and styles only; images also from data: and blob: URLs
 * (a page's screenshot arrives as a blob). Page content from the web is rendered as text by
 * React, never as markup, and this policy stops any script that slipped through.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

/**
 * Serves the built application from `dir`: files by path (hashed assets cached for a year), and
 * index.html for every other GET, so a reload on /projects/abc opens the app at that screen.
 */
export const staticFiles = (dir: string) => {
  const root = normalize(dir + sep);
  let index: Buffer | null = null;
  const readIndex = async () => (index ??= await readFile(join(root, 'index.html')));

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed');
      return;
    }
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(root, path));
    if (file.startsWith(root) && extname(file)) {
      const info = await stat(file).catch(() => null);
      if (info?.isFile()) {
        res.writeHead(200, {
          ...SECURITY_HEADERS,
          'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
          'content-length': info.size,
          'cache-control': path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        });
        if (req.method === 'HEAD') res.end();
        else createReadStream(file).pipe(res);
        return;
      }
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    let html: Buffer;
    try {
      html = await readIndex();
    } catch {
      res
        .writeHead(503, { 'content-type': 'text/plain; charset=utf-8' })
        .end('The web application is not built: run `pnpm build` (or `pnpm --filter @tidemark/web build`).');
      return;
    }
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': TYPES['.html']!, 'cache-control': 'no-cache' });
    res.end(req.method === 'HEAD' ? undefined : html);
  };
};
