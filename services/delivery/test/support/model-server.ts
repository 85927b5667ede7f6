import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ModelCall {
  authorization: string | undefined;
  body: {
    model: string;
    messages: { role: string; content: string }[];
    max_tokens?: number;
    response_format?: { type: string };
  };
}

/**
 * A small server speaking the OpenAI chat-completions protocol on loopback: POST
 * /v1/chat/completions answers `reply(call)` as the assistant message, with token usage, and
 * 401 for a wrong key.
 */
export class ModelServer {
  readonly calls: ModelCall[] = [];

  private constructor(
    private readonly server: Server,
    public reply: (call: ModelCall) => string,
    readonly apiKey: string,
  ) {}

  static async start(apiKey: string, reply: (call: ModelCall) => string): Promise<ModelServer> {
    const server = createServer();
    const model = new ModelServer(server, reply, apiKey);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
        const call: ModelCall = {
          authorization: req.headers.authorization,
          body: JSON.parse(Buffer.concat(chunks).toString()),
        };
        model.calls.push(call);
        if (call.authorization !== `Bearer ${apiKey}`) {
          res.writeHead(401, { 'content-type': 'application/json' });
          return void res.end(
            JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }),
          );
        }
        const content = model.reply(call);
        const prompt = call.body.messages.map((m) => m.content).join(' ');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: call.body.model,
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            usage: {
              prompt_tokens: Math.ceil(prompt.length / 4),
              completion_tokens: Math.ceil(content.length / 4),
              total_tokens: Math.ceil(prompt.length / 4) + Math.ceil(content.length / 4),
            },
          }),
        );
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    return model;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }
}
