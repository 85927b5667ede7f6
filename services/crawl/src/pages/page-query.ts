import { PAGE_ERROR_CODES, PAGE_VERDICTS } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';

/**
 * The pages query language (docs/decisions.md, Pages): space-separated terms, all required.
 *
 *   query  = term *(spaces term)
 *   term   = ["-"] (name ":" [op] value | value)      "-" negates the term
 *   op     = ">=" | "<=" | ">" | "<" | "="
 *   value  = bare | quoted                             quoted: "…" with \" and \\ escapes
 *
 * A value without a name matches the URL. A keyword or number value may list alternatives
 * with commas (`verdict:ok,thin`, `status:403,404`). This file only parses; page-query.sql.ts
 * turns the terms into SQL with every value bound as a parameter.
 */

export type FieldKind = 'int' | 'keyword' | 'text' | 'bool';
export type Op = '=' | '>' | '>=' | '<' | '<=';

export interface FieldDef {
  kind: FieldKind;
  /** Keyword fields with a closed vocabulary: values are checked and written the canonical way. */
  values?: readonly string[];
  describe: string;
}

/** The fields a term may name, by canonical name. */
export const QUERY_FIELDS = {
  url: { kind: 'text', describe: 'the URL contains the value (the default for a bare value)' },
  title: { kind: 'text', describe: 'the page title contains the value' },
  host: { kind: 'text', describe: 'the host (with its port) contains the value' },
  referer: { kind: 'text', describe: 'the first page that linked here contains the value' },
  status: { kind: 'int', describe: 'HTTP status code' },
  depth: { kind: 'int', describe: 'link hops from the seed' },
  words: { kind: 'int', describe: 'words of the page' },
  inLinks: { kind: 'int', describe: 'read pages linking here' },
  outLinks: { kind: 'int', describe: 'links found on the page (every host)' },
  credits: { kind: 'int', describe: 'credits the page cost' },
  verdict: { kind: 'keyword', values: PAGE_VERDICTS, describe: PAGE_VERDICTS.join(', ') },
  errorCode: { kind: 'keyword', values: Object.keys(PAGE_ERROR_CODES), describe: 'OK, NOT_FOUND, BLOCKED, …' },
  foundVia: { kind: 'keyword', values: ['seed', 'link', 'sitemap', 'feed'], describe: 'seed, link, sitemap, feed' },
  method: { kind: 'keyword', describe: 'engine that answered: http, browser, …' },
  tier: { kind: 'keyword', describe: 'tier that answered: http, browser' },
  language: { kind: 'keyword', describe: 'ISO 639-1 language' },
  inSitemap: { kind: 'bool', describe: 'true or false' },
  orphan: { kind: 'bool', describe: 'in a sitemap, linked from no read page' },
  unlisted: { kind: 'bool', describe: 'linked, in no sitemap (only when the site has one)' },
  deadEnd: { kind: 'bool', describe: 'read, with no link to a page in scope' },
} as const satisfies Record<string, FieldDef>;
export type QueryField = keyof typeof QUERY_FIELDS;

/** Other spellings: any case, snake_case, and the row's own names. */
const ALIASES: Record<string, QueryField> = {
  httpstatus: 'status',
  code: 'status',
  error: 'errorCode',
  via: 'foundVia',
  firstreferer: 'referer',
  sitemap: 'inSitemap',
  lang: 'language',
  v: 'verdict',
};
const lookupField = (name: string): QueryField | undefined => {
  const key = name.toLowerCase().replace(/_/g, '');
  const own = (Object.keys(QUERY_FIELDS) as QueryField[]).find((f) => f.toLowerCase() === key);
  return own ?? ALIASES[key];
};

export type Term =
  | { field: 'int'; name: QueryField; op: Op; values: number[]; negate: boolean; raw: string }
  | { field: 'keyword'; name: QueryField; values: string[]; negate: boolean; raw: string }
  | { field: 'text'; name: QueryField; value: string; negate: boolean; raw: string }
  | { field: 'bool'; name: QueryField; value: boolean; negate: boolean; raw: string };

export const MAX_QUERY_CHARS = 1000;
export const MAX_TERMS = 30;

/** A term the language cannot read: 400, naming the term as the caller wrote it. */
export class QueryError extends ValidationError {
  constructor(term: string, problem: string) {
    super(
      `query.q: term ${term}: ${problem}`,
      { fields: [{ field: 'query.q', message: `${term}: ${problem}` }], term },
      400,
    );
  }
}

interface Token {
  negate: boolean;
  name: string | null;
  op: Op | null;
  value: string;
  raw: string;
}

const OPS: Op[] = ['>=', '<=', '>', '<', '='];

/** Splits the query into terms; quotes and escapes are resolved here. */
const tokenize = (q: string): Token[] => {
  const out: Token[] = [];
  let i = 0;
  while (i < q.length) {
    if (/\s/.test(q[i]!)) {
      i += 1;
      continue;
    }
    const start = i;
    let negate = false;
    if (q[i] === '-' && i + 1 < q.length && !/\s/.test(q[i + 1]!)) {
      negate = true;
      i += 1;
    }
    let name: string | null = null;
    const named = /^([A-Za-z_]+):/.exec(q.slice(i));
    // "https://…" is a URL, not a field called https.
    if (named && !q.startsWith('//', i + named[0].length)) {
      name = named[1]!;
      i += named[0].length;
    }
    let op: Op | null = null;
    if (name !== null) {
      op = OPS.find((o) => q.startsWith(o, i)) ?? null;
      if (op) i += op.length;
    }
    let value = '';
    if (q[i] === '"') {
      i += 1;
      let closed = false;
      while (i < q.length) {
        const c = q[i]!;
        if (c === '\\' && i + 1 < q.length) {
          value += q[i + 1];
          i += 2;
        } else if (c === '"') {
          closed = true;
          i += 1;
          break;
        } else {
          value += c;
          i += 1;
        }
      }
      const raw = q.slice(start, i);
      if (!closed) throw new QueryError(raw, 'an unclosed quote');
      if (i < q.length && !/\s/.test(q[i]!)) {
        const end = q.slice(i).search(/\s/);
        throw new QueryError(q.slice(start, end < 0 ? q.length : i + end), 'text right after a closing quote');
      }
    } else {
      while (i < q.length && !/\s/.test(q[i]!)) {
        if (q[i] === '"') {
          const end = q.slice(i).search(/\s/);
          throw new QueryError(
            q.slice(start, end < 0 ? q.length : i + end),
            'a quote inside a value (quote the whole value)',
          );
        }
        value += q[i];
        i += 1;
      }
    }
    const raw = q.slice(start, i);
    if (!value) throw new QueryError(raw, name === null ? 'an empty term' : 'no value');
    out.push({ negate, name, op, value, raw });
  }
  return out;
};

const BOOLS: Record<string, boolean> = { true: true, yes: true, '1': true, false: false, no: false, '0': false };

const toTerm = (t: Token): Term => {
  if (t.name === null) return { field: 'text', name: 'url', value: t.value, negate: t.negate, raw: t.raw };
  const name = lookupField(t.name);
  if (!name) throw new QueryError(t.raw, `unknown field "${t.name}" (fields: ${Object.keys(QUERY_FIELDS).join(', ')})`);
  const def: FieldDef = QUERY_FIELDS[name];
  if (def.kind !== 'int' && t.op && t.op !== '=')
    throw new QueryError(t.raw, `${name} takes no comparison (${t.op}); only numbers do`);
  switch (def.kind) {
    case 'int': {
      const parts = t.value.split(',');
      if (parts.some((p) => !/^\d{1,9}$/.test(p)))
        throw new QueryError(t.raw, `${name} takes a whole number, e.g. ${name}:>2`);
      const op = t.op ?? '=';
      if (parts.length > 1 && op !== '=') throw new QueryError(t.raw, 'a list of numbers takes no comparison');
      return { field: 'int', name, op, values: parts.map(Number), negate: t.negate, raw: t.raw };
    }
    case 'keyword': {
      const parts = t.value.split(',').filter(Boolean);
      if (!parts.length) throw new QueryError(t.raw, 'no value');
      const values = parts.map((p) => {
        if (!def.values) return p.toLowerCase();
        const known = def.values.find((v) => v.toLowerCase() === p.toLowerCase());
        if (!known) throw new QueryError(t.raw, `${name} is one of ${def.values.join(', ')}`);
        return known;
      });
      return { field: 'keyword', name, values, negate: t.negate, raw: t.raw };
    }
    case 'text':
      return { field: 'text', name, value: t.value, negate: t.negate, raw: t.raw };
    case 'bool': {
      const value = BOOLS[t.value.toLowerCase()];
      if (value === undefined) throw new QueryError(t.raw, `${name} is true or false`);
      return { field: 'bool', name, value, negate: t.negate, raw: t.raw };
    }
  }
};

/** The terms of a query; an empty query has none. Throws QueryError naming the first bad term. */
export const parsePageQuery = (q: string): Term[] => {
  if (q.length > MAX_QUERY_CHARS)
    throw new QueryError(`${q.slice(0, 30)}…`, `a query of at most ${MAX_QUERY_CHARS} characters`);
  const terms = tokenize(q).map(toTerm);
  if (terms.length > MAX_TERMS) throw new QueryError(terms[MAX_TERMS]!.raw, `at most ${MAX_TERMS} terms`);
  return terms;
};

/** Whether any term needs the dead-end set (it costs a read of the run's links). */
export const usesDeadEnd = (terms: Term[]): boolean => terms.some((t) => t.name === 'deadEnd');
