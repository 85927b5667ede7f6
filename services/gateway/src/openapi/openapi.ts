import { z } from 'zod';
import { errorEnvelopeSchema } from '../http/common.schemas.js';
import type { AnyRoute } from '../http/route.js';

type JsonSchema = Record<string, unknown>;

/** Rewrites `#/$defs/X` (zod's local definitions) to `#/components/schemas/X` everywhere. */
const rehome = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(rehome);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' ? v.replace(/^#\/\$defs\//, '#/components/schemas/') : rehome(v),
    ]),
  );
};

/**
 * A zod schema as JSON Schema 2020-12 (what OpenAPI 3.1 speaks). Schemas named with
 * `.meta({id})` are hoisted into `components.schemas`, since a `#/$defs/...` reference would be
 * read against the whole OpenAPI document.
 */
const toSchema = (schema: z.ZodType, io: 'input' | 'output', components: Record<string, JsonSchema>): JsonSchema => {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete out.$schema;
  const defs = (out.$defs ?? {}) as Record<string, JsonSchema>;
  delete out.$defs;
  for (const [name, def] of Object.entries(defs)) {
    const rehomed = rehome(def) as JsonSchema;
    if (name in components && JSON.stringify(components[name]) !== JSON.stringify(rehomed)) {
      throw new Error(`two different schemas are both named ${name}`);
    }
    components[name] = rehomed;
  }
  return rehome(out) as JsonSchema;
};

/** Path and query parameters, one entry per key of the route's zod object. */
const parameters = (schema: z.ZodType | undefined, where: 'path' | 'query', components: Record<string, JsonSchema>) => {
  if (!schema) return [];
  const json = toSchema(schema, 'input', components);
  const props = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(props).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
    schema: s,
  }));
};

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/**
 * The OpenAPI 3.1 document, built from the very route definitions and zod schemas that validate
 * requests, so it cannot drift from what the API does.
 */
export const buildOpenApi = (routes: AnyRoute[], serverUrl = '/v1') => {
  const components: Record<string, JsonSchema> = {};
  toSchema(errorEnvelopeSchema, 'output', components);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:(\w+)/g, '{$1}');
    const responses: Record<string, unknown> = {};
    for (const [status, res] of Object.entries(r.responses)) {
      responses[status] = {
        description: res.description,
        ...(res.schema
          ? { content: { 'application/json': { schema: toSchema(res.schema, 'output', components) } } }
          : {}),
      };
    }
    const open = r.auth === 'none';
    if (!open) responses['401'] ??= errorResponse('missing, invalid or expired key or session (unauthorized)');
    if (r.auth === 'session') responses['403'] ??= errorResponse('an API key cannot use this route (forbidden)');
    if (r.scope !== 'read' && !open)
      responses['403'] ??= errorResponse(
        `the key's scope or the member's role is below ${r.scope} (forbidden), or the member's e-mail is unconfirmed (email_unverified)`,
      );
    if (r.params) responses['404'] ??= errorResponse('absent, or not visible to this key (not_found)');
    if (r.body || r.query) responses['400'] = errorResponse('malformed JSON or query (validation)');
    if (r.body)
      responses['422'] = errorResponse('the body does not match the schema; the message names the field (validation)');
    if (r.method === 'post' && !open)
      responses['409'] ??= errorResponse('the same Idempotency-Key is still being answered (conflict)');
    if (r.method === 'post') responses['413'] = errorResponse('the body is larger than the limit (too_large)');
    responses['429'] ??= errorResponse(
      open
        ? 'too many requests from this address; see Retry-After (rate_limited)'
        : 'per-key rate exceeded; see Retry-After (rate_limited)',
    );
    responses['500'] = errorResponse('a fault of ours; the request id finds it in our logs (internal)');
    responses['503'] ??= errorResponse('a service behind this route cannot be reached now (unavailable)');
    (paths[path] ??= {})[r.method] = {
      operationId: `${r.method}${r.path.replace(/[/:]+(\w)/g, (_m, c: string) => c.toUpperCase()).replace(/[^\w]/g, '')}`,
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: [r.tag],
      'x-scope': r.scope,
      ...(open ? { security: [] } : r.auth === 'session' ? { security: [{ session: [] }] } : {}),
      parameters: [
        ...parameters(r.params, 'path', components),
        ...parameters(r.query, 'query', components),
        ...(r.method === 'post' && !open
          ? [
              {
                name: 'Idempotency-Key',
                in: 'header',
                required: false,
                schema: { type: 'string', maxLength: 255 },
                description: 'the first answer is replayed for 24 hours; the key belongs to this route',
              },
            ]
          : []),
      ],
      ...(r.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: toSchema(r.body, 'input', components) } },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tidemark API',
      version: '1.0',
      description:
        'Web content capture and change tracking. Every response carries X-Request-Id; authenticated ones carry X-RateLimit-Limit, -Remaining and -Reset (seconds). Errors are {error, code, request_id}.',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }, { session: [] }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'API key: service_<secret>' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'tidemark_session',
          description: 'a signed-in member (POST /auth/login); the web application’s way in',
        },
      },
      schemas: components,
    },
    paths,
  };
};

export type OpenApiDocument = ReturnType<typeof buildOpenApi>;
