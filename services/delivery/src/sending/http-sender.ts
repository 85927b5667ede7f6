import http from 'node:http';
import https from 'node:https';
import { BlockedAddressError } from '@tidemark/net-guard';
import { readHttpStatus, type SendResult } from './retry-policy.js';

export interface Agents {
  http: http.Agent;
  https: https.Agent;
}

/** What a receiver may make us read of its answer (kept for the log), so a huge one costs nothing. */
const MAX_ANSWER_BYTES = 1024;

/**
 * One POST through the fetch guard's agents. The answer must come within `timeoutMs` (the
 * spec's 10 s); past it the request is dropped and counts as no answer. Redirects are not
 * followed.
 */
export class HttpSender {
  constructor(
    private readonly agents: Agents,
    private readonly timeoutMs: number,
    private readonly userAgent: string,
  ) {}

  post(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({
      ...r,
      durationMs: Math.round(performance.now() - started),
    });
    let target: URL;
    try {
      target = new URL(url);
      if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      return Promise.resolve(done({ status: null, error: 'not an http(s) URL', answer: 'refused' }));
    }
    const secure = target.protocol === 'https:';
    return new Promise((resolve) => {
      let settled = false;
      let req: http.ClientRequest;
      const finish = (r: Omit<SendResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(done(r));
      };
      const timer = setTimeout(() => {
        finish({ status: null, error: `no answer within ${this.timeoutMs} ms`, answer: 'retryable' });
        req.destroy();
      }, this.timeoutMs);
      const send = (again: boolean) => {
        req = (secure ? https : http).request(target, {
          method: 'POST',
          agent: secure ? this.agents.https : this.agents.http,
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': this.userAgent,
            ...headers,
          },
        });
        this.listen(req, finish, () => !again && !settled && send(true));
        req.end(body);
      };
      send(false);
    });
  }

  /**
   * How one request's outcome reads. A kept-alive connection the receiver closed as we reused
   * it (its idle timeout and our send crossed: reset before any answer) is no attempt at all:
   * the request goes once more on a new connection (`sendAgain`), as Node's documentation
   * advises for `reusedSocket`, instead of counting as a failure that waits a minute to retry.
   * (Delivery is at least once: should the receiver have read it after all, the same
   * webhook-id tells it so.)
   */
  private listen(
    req: http.ClientRequest,
    finish: (r: Omit<SendResult, 'durationMs'>) => void,
    sendAgain: () => void,
  ): void {
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) res.destroy();
      });
      const status = res.statusCode ?? null;
      const settle = () =>
        finish({
          status,
          error: status !== null && status >= 300 ? `answered ${status}` : null,
          answer: readHttpStatus(status),
        });
      res.on('end', settle);
      res.on('close', settle);
      res.on('error', settle);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (!answered && req.reusedSocket && STALE_SOCKET_CODES.has(err.code ?? '')) return sendAgain();
      finish({
        status: null,
        // A refusal says so in its first words: "refused by the fetch guard: …".
        error: err.message || String(err),
        // A refused address stays refused; anything else (DNS, reset) may pass.
        answer: err instanceof BlockedAddressError ? 'refused' : 'retryable',
      });
    });
  }
}

/** How a kept-alive connection closed by the receiver fails when reused. */
const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE']);
