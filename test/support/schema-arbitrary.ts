import fc from 'fast-check';

/**
 * fast-check arbitraries for request values read off the OpenAPI document: `validish` makes a
 * value of a JSON Schema's shape (so a request gets past the first check and reaches deeper
 * code), and `hostile` makes what a careless client or an attacker sends instead. The fuzz test
 * mixes the two; neither tries to be complete, only varied.
 */
type Schema = Record<string, any>;

/** Strings that have broken parsers, databases and loggers somewhere. */
const NASTY_STRINGS = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udfffy',
  '\u202e\u0644',
  '😀'.repeat(50),
  '../../etc/passwd',
  '%00',
  '%zz',
  '{{7*7}}',
  "'; DROP TABLE project; --",
  '<script>alert(1)</script>',
  '\r\nSet-Cookie: a=b',
  '-1',
  '0',
  '1e309',
  'NaN',
  'Infinity',
  '9'.repeat(40),
  'true',
  'null',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'http://',
  'http://[::ffff:127.0.0.1]:1/',
  'javascript:alert(1)',
  'file:///etc/passwd',
  '*'.repeat(300),
  '{a,b}'.repeat(60),
  'a'.repeat(70_000),
  '//' + 'a'.repeat(300),
];

const nastyString = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
);

/** Any JSON value, with the nasty strings in it and some depth. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    nastyString,
    fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 31), Number.MAX_SAFE_INTEGER * 10),
    fc.integer(),
    fc.double(),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(nastyString, fc.string({ maxLength: 8 })), tie('v'), { maxKeys: 4 }),
  ),
})).v;

/** `{"a":{"a":…}}` nested `depth` times: recursion in validators and serialisers. */
export const deepJson = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

export interface SchemaContext {
  /** components.schemas of the document, for $ref. */
  components: Record<string, Schema>;
  /** URLs the fleet may fetch (the test web), for `format: uri` strings. */
  urls: string[];
}

const resolve = (s: Schema, ctx: SchemaContext): Schema => {
  let cur = s;
  for (let i = 0; i < 10 && typeof cur.$ref === 'string'; i++) {
    cur = ctx.components[cur.$ref.replace('#/components/schemas/', '')] ?? {};
  }
  return cur;
};

const typeOf = (s: Schema): string | undefined => {
  if (Array.isArray(s.type)) return s.type.find((t: string) => t !== 'null');
  if (s.type) return s.type;
  if (s.properties) return 'object';
  if (s.items) return 'array';
  return undefined;
};

/** A value of the schema's shape (usually valid; bounds are kept small). */
export const validish = (schema: Schema, ctx: SchemaContext, depth = 0): fc.Arbitrary<unknown> => {
  const s = resolve(schema, ctx);
  if (depth > 5) return fc.constant(null);
  const alternatives = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (alternatives?.length) return fc.oneof(...alternatives.map((a) => validish(a, ctx, depth + 1)));
  if (s.allOf?.length) return validish(s.allOf[0], ctx, depth + 1);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length) return fc.constantFrom(...s.enum);
  switch (typeOf(s)) {
    case 'string': {
      if (s.format === 'uri' || s.format === 'url') return fc.constantFrom(...ctx.urls);
      if (s.format === 'email') return fc.emailAddress();
      if (s.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      const min = s.minLength ?? 0;
      const max = Math.max(min, Math.min(s.maxLength ?? 24, 24));
      return fc.string({ minLength: min, maxLength: max });
    }
    case 'integer':
      return fc.integer({ min: s.minimum ?? 0, max: Math.min(s.maximum ?? 1000, 1000) });
    case 'number':
      return fc.double({ min: s.minimum ?? 0, max: Math.min(s.maximum ?? 1000, 1000), noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(s.items ? validish(s.items, ctx, depth + 1) : hostileJson, {
        minLength: s.minItems ?? 0,
        maxLength: Math.max(s.minItems ?? 0, 3),
      });
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const required = new Set<string>(s.required ?? []);
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) shape[k] = validish(v, ctx, depth + 1);
      return fc.record(shape, { requiredKeys: [...required].filter((k) => k in shape) });
    }
    default:
      return hostileJson;
  }
};

/** A schema-shaped value with one field swapped for a hostile value (or an unknown field added). */
export const mutated = (schema: Schema, ctx: SchemaContext): fc.Arbitrary<unknown> =>
  fc.tuple(validish(schema, ctx), hostileJson, fc.nat(), fc.boolean()).map(([value, bad, pick, add]) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return bad;
    const obj = { ...(value as Record<string, unknown>) };
    const keys = Object.keys(obj);
    if (add || keys.length === 0) obj[`unknown_${pick % 7}`] = bad;
    else obj[keys[pick % keys.length]!] = bad;
    return obj;
  });

/** A query-string value: of the parameter's type, or not. */
export const queryValue = (schema: Schema, ctx: SchemaContext): fc.Arbitrary<string> =>
  fc.oneof(
    validish(schema, ctx).map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))),
    nastyString,
    fc.constantFrom('-1', '0', '1001', '99999999999999999999', '1.5', 'abc', ''),
  );

/** A path segment: a real id sometimes, otherwise anything. */
export const pathValue = (real: string[]): fc.Arbitrary<string> =>
  real.length
    ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...real) }, { weight: 3, arbitrary: nastyString })
    : nastyString;

/** Header values fetch can send (ISO-8859-1, no CR/LF/NUL). */
export const headerValue: fc.Arbitrary<string> = fc
  .oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom('', ' ', 'x'.repeat(300), 'ws_missing', '../..', 'null', '1', 'é'.repeat(5)),
  )
  .map((s) => s.replace(/[^\x20-\x7e\xa0-\xff]/g, '').trim());
