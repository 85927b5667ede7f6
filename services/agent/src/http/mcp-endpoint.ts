import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { TidemarkError } from '@tidemark/sdk';
import type { Logger } from '@tidemark/telemetry';
import type { Config } from '../config.js';
import { openConnection } from '../connection.js';

interface Session {
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  /** SHA-256 of the key that opened it: every later request must bring the same key. */
  keyHash: Buffer;
  lastSeen: number;
  inFlight: number;
}

/** Bytes of an initialize request read before the transport exists. */
const MAX_INIT_BODY = 1 << 20;

const hashKey = (key: string) => createHash('sha256').update(key).digest();

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
};
const sendEnvelope = (res: ServerResponse, status: number, code: string, error: string, requestId?: string | null) =>
  sendJson(
    res,
    status,
    { error, code, request_id: requestId ?? `agent_${randomUUID()}` },
    status === 401 ? { 'www-authenticate': 'Bearer' } : {},
  );
const sendRpcError = (res: ServerResponse, status: number, code: number, message: string) =>
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });

const bearer = (req: IncomingMessage): string | null => {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m ? m[1]! : null;
};

/** `?read_only=1` or `X-Tidemark-Read-Only: 1` on the request that opens the session. */
const asksReadOnly = (req: IncomingMessage): boolean => {
  const query = new URL(req.url ?? '/', 'http://x').searchParams.get('read_only');
  const header = req.headers['x-tidemark-read-only'];
  return [query, Array.isArray(header) ? header[0] : header].some(
    (v) => v !== null && v !== undefined && /^(1|true|yes|on)$/i.test(v),
  );
};

const readBody = (req: IncomingMessage): Promise<string | null> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_INIT_BODY) {
        resolve(null);
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

/**
 * The tool server over Streamable HTTP: one MCP session per connection, each with the bearer key
 * that opened it (checked with GET /me first) and its access (read-only when the key may not
 * write or the connection asked). Later requests of a session must carry the same key.
 */
export class McpEndpoint {
  private readonly sessions = new Map<string, Session>();
  private readonly reaper: NodeJS.Timeout;

  constructor(
    private readonly cfg: Config,
    private readonly logger: Logger,
  ) {
    this.reaper = setInterval(() => void this.closeIdle(), Math.min(60_000, cfg.AGENT_SESSION_IDLE_MS));
    this.reaper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const key = bearer(req);
    if (!key) return sendEnvelope(res, 401, 'unauthorized', 'send a Tidemark API key as Authorization: Bearer <key>');
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = this.sessions.get(sessionId);
      if (!session) return sendRpcError(res, 404, -32001, 'Session not found: initialize a new one');
      const given = hashKey(key);
      if (!timingSafeEqual(given, session.keyHash))
        return sendEnvelope(res, 401, 'unauthorized', 'this session was opened with another key');
      session.lastSeen = Date.now();
      session.inFlight++;
      res.once('close', () => {
        session.inFlight--;
        session.lastSeen = Date.now();
      });
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return sendRpcError(res, 400, -32000, 'no session: POST an initialize request first');
    const text = await readBody(req);
    if (text === null)
      return sendEnvelope(res, 413, 'too_large', `an initialize request is at most ${MAX_INIT_BODY} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return sendRpcError(res, 400, -32700, 'Parse error: the body is not JSON');
    }
    if (!isInitializeRequest(body))
      return sendRpcError(res, 400, -32000, 'no session: POST an initialize request first');
    if (this.sessions.size >= this.cfg.AGENT_MAX_SESSIONS)
      return sendEnvelope(res, 503, 'unavailable', 'too many open sessions; try again later');
    return this.open(key, asksReadOnly(req), req, res, body);
  }

  private async open(key: string, readOnly: boolean, req: IncomingMessage, res: ServerResponse, body: unknown) {
    let server: McpServer;
    try {
      ({ server } = await openConnection(
        {
          apiKey: key,
          apiUrl: this.cfg.TIDEMARK_API_URL,
          readOnly,
          waitMaxMs: this.cfg.AGENT_WAIT_MAX_MS,
          pollMs: this.cfg.AGENT_POLL_MS,
        },
        this.logger,
      ));
    } catch (err) {
      if (err instanceof TidemarkError && err.status === 401)
        return sendEnvelope(res, 401, 'unauthorized', err.message, err.requestId);
      if (err instanceof TidemarkError && err.status > 0 && err.status < 500)
        return sendEnvelope(res, err.status, err.code, err.message, err.requestId);
      this.logger.warn({ err }, 'the API could not be asked about a key');
      return sendEnvelope(res, 503, 'unavailable', 'the Tidemark API did not answer; try again');
    }
    const keyHash = hashKey(key);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { server, transport, keyHash, lastSeen: Date.now(), inFlight: 0 });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  private async closeIdle(now = Date.now()) {
    for (const [id, s] of this.sessions) {
      if (s.inFlight > 0 || now - s.lastSeen < this.cfg.AGENT_SESSION_IDLE_MS) continue;
      this.sessions.delete(id);
      await s.server.close().catch((err: unknown) => this.logger.warn({ err }, 'session close failed'));
    }
  }

  async close(): Promise<void> {
    clearInterval(this.reaper);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.server.close().catch(() => undefined)));
  }
}
