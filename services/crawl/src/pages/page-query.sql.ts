import { Prisma } from '@tidemark/db';
import type { Op, QueryField, Term } from './page-query.js';

/** What a condition needs besides the terms: facts of the run, not of one row. */
export interface QueryContext {
  /** URLs the run's sitemaps listed: with none, no page is unlisted. */
  sitemapUrls: number;
  /** Positions of the run's dead ends, when a term or flag asks for them. */
  deadEnds: number[] | null;
}

/**
 * Column expressions by field, over `c` (crawl_url) and `p` (page, joined read-only). Constant
 * SQL: no part of the caller's query ever becomes SQL text; values are bound parameters.
 */
const EXPR: Record<Exclude<QueryField, 'orphan' | 'unlisted' | 'deadEnd'>, Prisma.Sql> = {
  url: Prisma.sql`c.url`,
  title: Prisma.sql`(p.data->'head'->>'title')`,
  host: Prisma.sql`c.host`,
  referer: Prisma.sql`c.first_referer`,
  status: Prisma.sql`c.http_status`,
  depth: Prisma.sql`c.depth`,
  words: Prisma.sql`(p.data->>'words')::int`,
  inLinks: Prisma.sql`c.in_links`,
  outLinks: Prisma.sql`c.out_links`,
  credits: Prisma.sql`p.credits`,
  verdict: Prisma.sql`c.verdict`,
  errorCode: Prisma.sql`c.error_code`,
  foundVia: Prisma.sql`c.found_via`,
  method: Prisma.sql`lower(p.data->>'method')`,
  tier: Prisma.sql`lower(p.tier)`,
  language: Prisma.sql`lower(p.data->>'language')`,
  inSitemap: Prisma.sql`c.in_sitemap`,
};

const OP_SQL: Record<Op, Prisma.Sql> = {
  '=': Prisma.sql`=`,
  '>': Prisma.sql`>`,
  '>=': Prisma.sql`>=`,
  '<': Prisma.sql`<`,
  '<=': Prisma.sql`<=`,
};

/** The graph flags, as GET /crawl/{id} computes them for a row (crawl.service.ts withGraph). */
export const ORPHAN_SQL = Prisma.sql`(c.in_sitemap AND c.in_links = 0 AND c.found_via <> 'seed')`;
export const unlistedSql = (sitemapUrls: number) =>
  Prisma.sql`(NOT c.in_sitemap AND c.in_links > 0 AND ${sitemapUrls > 0}::boolean)`;
export const deadEndSql = (positions: number[]) => Prisma.sql`c.position = ANY(${positions}::int[])`;

/** `%`, `_` and `\` stand for themselves in a contains-match. */
const likeContains = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const termSql = (t: Term, ctx: QueryContext): Prisma.Sql => {
  switch (t.name) {
    case 'orphan':
      return ORPHAN_SQL;
    case 'unlisted':
      return unlistedSql(ctx.sitemapUrls);
    case 'deadEnd':
      if (!ctx.deadEnds) throw new Error('deadEnd asked without the run’s dead ends');
      return deadEndSql(ctx.deadEnds);
  }
  const expr = EXPR[t.name];
  switch (t.field) {
    case 'int':
      return t.values.length > 1
        ? Prisma.sql`${expr} = ANY(${t.values}::int[])`
        : Prisma.sql`${expr} ${OP_SQL[t.op]} ${t.values[0]!}::int`;
    case 'keyword':
      return Prisma.sql`${expr} = ANY(${t.values}::text[])`;
    case 'text':
      return Prisma.sql`${expr} ILIKE ${likeContains(t.value)} ESCAPE '\\'`;
    case 'bool':
      return Prisma.sql`${expr}`;
  }
};

/**
 * One condition for all the terms (AND). A term on a value the row lacks (no HTTP status, no
 * title) is false, and its negation true: `-status:200` keeps rows that have no status.
 */
export const queryCondition = (terms: Term[], ctx: QueryContext): Prisma.Sql => {
  if (!terms.length) return Prisma.sql`TRUE`;
  const parts = terms.map((t) => {
    const holds = Prisma.sql`COALESCE((${termSql(t, ctx)}), false)`;
    const wanted = t.field === 'bool' ? t.value !== t.negate : !t.negate;
    return wanted ? holds : Prisma.sql`NOT ${holds}`;
  });
  return Prisma.join(parts, ' AND ');
};
