import { describe, expect, it } from '@jest/globals';
import { connectionProviderSchema, connectionSchema, connectionTestSchema, deliveryV1 } from '@tidemark/contracts';
import { connectionProviderToRest, connectionTestToRest, connectionToRest } from '../src/mappers/connection.mapper.js';

const wire = <T>(codec: { encode(m: T): { finish(): Uint8Array }; decode(b: Uint8Array): T }, m: T): T =>
  codec.decode(codec.encode(m).finish());

describe('connectionToRest', () => {
  it('answers the config as the user gave it (a Struct, values of any JSON kind) and only the secrets’ names', () => {
    const message: deliveryV1.Connection = {
      id: 'con_01JDB2',
      provider: 'openai_compatible',
      name: 'local model',
      config: { base_url: 'http://llm.internal:8000/v1', model: 'tiny-1', extra: { n: 2, on: true, tags: ['a'] } },
      secrets: ['api_key'],
      lastTest: { at: new Date('2026-03-02T09:00:00.000Z'), ok: false, error: 'the endpoint answered 401' },
      createdAt: new Date('2026-03-01T08:00:00.000Z'),
      updatedAt: new Date('2026-03-02T09:00:00.000Z'),
    };
    const body = connectionToRest(wire(deliveryV1.Connection, message));
    expect(body).toEqual({
      id: 'con_01JDB2',
      provider: 'openai_compatible',
      name: 'local model',
      config: { base_url: 'http://llm.internal:8000/v1', model: 'tiny-1', extra: { n: 2, on: true, tags: ['a'] } },
      secrets: ['api_key'],
      lastTest: { at: '2026-03-02T09:00:00.000Z', ok: false, error: 'the endpoint answered 401' },
      createdAt: '2026-03-01T08:00:00.000Z',
      updatedAt: '2026-03-02T09:00:00.000Z',
    });
    expect(connectionSchema.parse(body)).toEqual(body);
    const untested = connectionToRest({ ...message, lastTest: undefined, config: undefined });
    expect(untested).toMatchObject({ lastTest: null, config: {} });
  });
});

describe('connectionProviderToRest', () => {
  it('answers a field’s default only when it has one', () => {
    const provider: deliveryV1.ConnectionProvider = {
      provider: 'openai',
      name: 'OpenAI',
      kind: 'llm',
      fields: [
        { name: 'base_url', required: false, default: 'https://api.openai.com/v1', description: 'API root' },
        { name: 'model', required: true, default: undefined, description: 'model name' },
      ],
      secrets: [{ name: 'api_key', required: true, description: 'an OpenAI API key' }],
      note: 'The hosted OpenAI API over the same protocol.',
      verified: false,
    };
    const body = connectionProviderToRest(wire(deliveryV1.ConnectionProvider, provider));
    expect(body).toEqual({
      provider: 'openai',
      name: 'OpenAI',
      kind: 'llm',
      fields: [
        { name: 'base_url', required: false, default: 'https://api.openai.com/v1', description: 'API root' },
        { name: 'model', required: true, description: 'model name' },
      ],
      secrets: [{ name: 'api_key', required: true, description: 'an OpenAI API key' }],
      note: 'The hosted OpenAI API over the same protocol.',
      verified: false,
    });
    expect(connectionProviderSchema.parse(body)).toEqual(body);
  });
});

describe('connectionTestToRest', () => {
  it('answers a test that reached the model, and one that did not', () => {
    const ok = connectionTestToRest(
      wire(deliveryV1.ConnectionTest, { ok: true, status: 200, error: undefined, model: 'tiny-1', latencyMs: 143 }),
    );
    expect(ok).toEqual({ ok: true, status: 200, error: null, model: 'tiny-1', latencyMs: 143 });
    expect(connectionTestSchema.parse(ok)).toEqual(ok);
    expect(
      connectionTestToRest({
        ok: false,
        status: undefined,
        error: 'no answer',
        model: undefined,
        latencyMs: 60_000,
      }),
    ).toEqual({ ok: false, status: null, error: 'no answer', model: null, latencyMs: 60_000 });
  });
});
