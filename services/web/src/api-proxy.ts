import { randomBytes } from 'node:crypto';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Logger } from '@tidemark/telemetry';

/** Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The spec's error envelope, for the answers this proxy gives itself. */
const sendEnvelope = (res: ServerResponse, status: number, code: string, error: string, requestId: string) => {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId });
  res.end(JSON.stringify({ error, code, request_id: requestId }));
};

const sameHost = (origin: string, host: string): boolean => {
  try {
    return new URL(origin).host === host;
  } catch {
    return false; // "null" (a sandboxed frame) or garbage
  }
};

/**
 * Passes `/v1/*` to the gateway as the browser sent it, with the member's session cookie and
 * nothing more: an `Authorization` header is dropped (the app signs in with its cookie; a key
 * belongs to programs calling the API directly). Bodies stream both ways, so an export download
 * is never held in memory. A request from another site's page (an `Origin` that is not this
 * one) is refused before it reaches the API, beside the cookie's SameSite=Lax.
 */
export const apiProxy = (apiUrl: string, timeoutMs: number, logger: Logger) => {
  const target = new URL(apiUrl);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;

  return (req: IncomingMessage, res: ServerResponse): void => {
    // The gateway mints the request id; this one names the proxy's own answers (same shape).
    const requestId = String(req.headers['x-request-id'] ?? `req_${randomBytes(16).toString('hex')}`);
    const host = req.headers.host ?? '';
    const origin = req.headers.origin;
    if (origin && req.method !== 'GET' && req.method !== 'HEAD' && !sameHost(origin, host)) {
      sendEnvelope(res, 403, 'forbidden', 'cross-site request refused', requestId);
      return;
    }

    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name) || name === 'authorization') continue;
      headers[name] = value;
    }
    // The gateway builds `next` links from Host: they then point at this app, not at the API.
    headers.host = host;
    const forwardedFor = req.headers['x-forwarded-for'];
    headers['x-forwarded-for'] = [forwardedFor, req.socket.remoteAddress].filter(Boolean).join(', ');
    headers['x-forwarded-proto'] = 'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http';
    headers['x-forwarded-host'] = host;

    const upstream = send(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
        timeout: timeoutMs,
      },
      (answer) => {
        const out: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers))
          if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
        res.writeHead(answer.statusCode ?? 502, out);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('timeout', () => upstream.destroy(new Error('the API did not answer in time')));
    upstream.on('error', (err) => {
      logger.warn({ err, path: req.url }, 'API unreachable');
      sendEnvelope(res, 502, 'unavailable', 'the API is not answering; try again shortly', requestId);
    });
    // The browser left: stop the upstream call too (an export stops reading rows).
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };
};
