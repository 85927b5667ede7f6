import http from 'node:http';
import https from 'node:https';
import { BlockedAddressError, HostNotFoundError, REFUSED_BY_GUARD } from '@tidemark/net-guard';
import type { Agents } from '../sending/http-sender.js';

export interface ChatCompletion {
  /** The HTTP status the endpoint answered (2xx). */
  status: number;
  content: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
}

/**
 * Why a model call did not give an answer; the message is safe to show the workspace: a fixed
 * reason and at most the status the endpoint answered, never what it said (the base URL is the
 * workspace's, so an answer echoed back would be a way to read whatever it points at).
 */
export class ModelCallError extends Error {
  constructor(
    message: string,
    /** The HTTP status the endpoint answered, when it answered. */
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'ModelCallError';
  }
}

/** A Node network error code (ECONNREFUSED, CERT_HAS_EXPIRED…): a fixed vocabulary, kept. */
const networkCode = (err: unknown): string | null => {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code) ? code : null;
};

const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

/**
 * POST {base_url}/chat/completions, the OpenAI-compatible protocol, through the fetch guard (the
 * base URL is the workspace's, so it may not reach private addresses unless exempt).
 */
export class ChatCompletionsClient {
  constructor(
    private readonly agents: Agents,
    private readonly timeoutMs: number,
    private readonly userAgent: string,
  ) {}

  async complete(opts: {
    baseUrl: string;
    apiKey: string | undefined;
    model: string;
    messages: { role: 'system' | 'user'; content: string }[];
    maxTokens: number;
    json: boolean;
  }): Promise<ChatCompletion> {
    const url = new URL(`${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`);
    const body = JSON.stringify({
      model: opts.model,
      messages: opts.messages,
      max_tokens: opts.maxTokens,
      temperature: 0,
      ...(opts.json ? { response_format: { type: 'json_object' } } : {}),
    });
    const { status, text } = await this.post(url, body, opts.apiKey);
    if (status < 200 || status >= 300) throw new ModelCallError(`the model endpoint answered ${status}`, status);
    let parsed: {
      model?: string;
      choices?: { message?: { content?: string | null } }[];
      usage?: { prompt_tokens?: number; completion_tokens?: number };
    };
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ModelCallError('the model endpoint did not answer JSON', status);
    }
    const content = parsed.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new ModelCallError('the model endpoint answered no message', status);
    return {
      status,
      content,
      model: parsed.model ?? opts.model,
      promptTokens: parsed.usage?.prompt_tokens ?? 0,
      completionTokens: parsed.usage?.completion_tokens ?? 0,
    };
  }

  private post(url: URL, body: string, apiKey: string | undefined): Promise<{ status: number; text: string }> {
    const secure = url.protocol === 'https:';
    if (!secure && url.protocol !== 'http:') return Promise.reject(new ModelCallError('base_url is not http(s)'));
    return new Promise((resolve, reject) => {
      const req = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? this.agents.https : this.agents.http,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': this.userAgent,
          ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        },
      });
      const timer = setTimeout(
        () => req.destroy(new ModelCallError(`no answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_ANSWER_BYTES)
            req.destroy(new ModelCallError('the model endpoint answered too much', res.statusCode ?? null));
          else chunks.push(c);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
      });
      req.on('error', (err) => {
        clearTimeout(timer);
        if (err instanceof ModelCallError) return reject(err);
        // Fixed reasons only: not the range a name resolved into, not a peer's error text.
        if (err instanceof BlockedAddressError)
          return reject(new ModelCallError(`${REFUSED_BY_GUARD}: base_url is a private or reserved address`));
        if (err instanceof HostNotFoundError) return reject(new ModelCallError('base_url could not be resolved'));
        const code = networkCode(err);
        reject(new ModelCallError(`the model endpoint is unreachable${code ? ` (${code})` : ''}`));
      });
      req.end(body);
    });
  }
}
