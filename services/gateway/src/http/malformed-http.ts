import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';

/** Whether a header value holds a character HTTP forbids there (a control such as NUL, or DEL). */
const hasControl = (value: string) =>
  [...value].some((ch) => {
    const code = ch.charCodeAt(0);
    return (code < 0x20 && code !== 0x09) || code === 0x7f;
  });

/** The name of the first header line whose value HTTP forbids. */
const badHeader = (raw: string): string | undefined => {
  for (const line of raw.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0 || !hasControl(line.slice(colon + 1))) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    return /^[\w!#$%&'*+.^`|~-]{1,64}$/.test(name) ? name : undefined;
  }
  return undefined;
};

/**
 * Node's HTTP parser refuses a request it cannot read (a NUL or another control character in a
 * header, a broken request line) before express sees it, and by default answers a bare
 * `400 Bad Request`. This answers the spec's envelope instead, naming the header when it can.
 */
export const answerMalformedHttp = (err: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void => {
  if (!socket.writable) return void socket.destroy();
  if (err.code === 'ECONNRESET') return void socket.destroy();
  const raw = err.rawPacket?.toString('latin1') ?? '';
  const header = badHeader(raw);
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const error = tooLarge
    ? 'the request headers are larger than the limit'
    : header
      ? `header.${header}: contains a character HTTP does not allow in a header (a control character such as NUL)`
      : 'the request is not valid HTTP';
  const requestId = `req_${randomUUID().replaceAll('-', '')}`;
  const body = JSON.stringify({ error, code: tooLarge ? 'too_large' : 'validation', request_id: requestId });
  socket.end(
    `HTTP/1.1 ${tooLarge ? '413 Payload Too Large' : '400 Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
};
