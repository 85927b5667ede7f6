import { z } from 'zod';
import type { CrawlEnvelope, MapEnvelope, ScrapeEnvelope } from '@tidemark/sdk';
import { LIMITS, shapeMultiPage, shapeSinglePage, type RowLike } from '../shaping/shape.js';
import { ToolRefusal } from './results.js';
import { defineTool, progressText, readShapedPages, waitForJob, type ToolContext } from './tool-context.js';

const FORMATS = ['markdown', 'text', 'cleanHtml', 'rawHtml', 'links'] as const;
const httpUrl = z
  .string()
  .max(2048)
  .regex(/^https?:\/\//i, 'an http(s) URL');
const config = z
  .record(z.string(), z.unknown())
  .optional()
  .describe(
    'project configuration keys for this fetch (see describe_project_config), e.g. {"render_js": "always", "only_main_content": false}',
  );
const parseDocuments = z
  .boolean()
  .optional()
  .describe('read PDFs and office documents into markdown (where this deployment reads documents)');

/**
 * `parse_documents` goes to the config key that switches document reading when GET /meta lists
 * one; where none exists yet the answer says so instead of pretending.
 */
export const withDocuments = async (
  ctx: ToolContext,
  cfg: Record<string, unknown> | undefined,
  parse: boolean | undefined,
): Promise<{ config: Record<string, unknown> | undefined; notes: string[] }> => {
  if (parse === undefined) return { config: cfg, notes: [] };
  const key = await ctx.documentKey();
  if (!key)
    return {
      config: cfg,
      notes: [
        'parse_documents was not applied: this Tidemark has no document reading yet (no such config key in GET /meta); documents are fetched like any other page',
      ],
    };
  return { config: { ...cfg, [key]: parse }, notes: [] };
};

const jobState = (e: {
  id: string;
  status: string;
  progress: unknown;
  creditsUsed: number;
  stop?: string | null;
  error?: string | null;
}) => ({
  id: e.id,
  status: e.status,
  progress: e.progress,
  creditsUsed: e.creditsUsed,
  stop: e.stop ?? null,
  error: e.error ?? null,
});

/** Every row of a batch scrape job, up to the index limit (bodies included: a batch returns them). */
const batchRows = async (ctx: ToolContext, id: string, cursor?: string) => {
  const rows: RowLike[] = [];
  let page = await ctx.tm.scrape.get(id, { limit: 100, ...(cursor ? { cursor } : {}) });
  rows.push(...(page.data as RowLike[]));
  while (rows.length < LIMITS.indexPages && page.data.length === 100 && page.next && page.cursor) {
    page = await ctx.tm.scrape.get(id, { limit: 100, cursor: page.cursor });
    rows.push(...(page.data as RowLike[]));
  }
  return { ...shapeMultiPage(rows), cursor: page.next && page.cursor ? page.cursor : null };
};

const crawlPages = (ctx: ToolContext, id: string, cursor?: string) =>
  readShapedPages(
    (q) => ctx.tm.crawl.get(id, q) as Promise<{ data: RowLike[]; next: string | null; cursor: string | null }>,
    cursor,
  );

const mapIndex = async (ctx: ToolContext, job: MapEnvelope, cursor?: string) => {
  const page = await ctx.tm.map.get(job.id, { limit: LIMITS.indexPages, ...(cursor ? { cursor } : {}) });
  return {
    ...jobState(page),
    kind: 'map',
    totals: page.totals,
    method: page.method,
    urls: page.data.map((r) => ({ url: r.url, lastmod: r.lastmod, section: r.section, source: r.source })),
    cursor: page.next && page.cursor ? page.cursor : null,
  };
};

export const jobTools = [
  defineTool({
    name: 'scrape_urls',
    title: 'Scrape URLs',
    description:
      'Fetch one or more web pages now and return their clean content. One URL returns that page with each body up to 12,000 characters; several (up to 500) run as a batch and return an index of the pages read (URL, title, verdict, words, link count) and the markdown of as many pages as fit in 60,000 characters. Each page costs credits (1 for plain HTTP, more when a browser is needed). Use crawl_site to follow links across a site instead.',
    input: {
      urls: z.array(httpUrl).min(1).max(500).describe('the pages to fetch'),
      formats: z
        .array(z.enum(FORMATS))
        .max(5)
        .optional()
        .describe('bodies to return: markdown (default), text, cleanHtml, rawHtml; links are always counted'),
      config,
      parse_documents: parseDocuments,
    },
    readOnly: false,
    async run(args, ctx, extra) {
      const formats = [...new Set([...(args.formats ?? ['markdown']), 'links'])].join(',');
      const { config: cfg, notes } = await withDocuments(ctx, args.config, args.parse_documents);
      if (args.urls.length === 1) {
        const res = await ctx.tm.scrape.start({ url: args.urls[0]!, formats, ...(cfg ? { config: cfg } : {}) });
        let job: ScrapeEnvelope = res.data;
        if (res.status === 202)
          job = (
            await waitForJob(
              ctx,
              extra,
              'scrape',
              () => ctx.tm.scrape.get(job.id),
              (s) => progressText('scrape', s),
            )
          ).state;
        const row = job.data[0] as RowLike | undefined;
        return {
          kind: 'scrape',
          ...jobState(job),
          page: row ? shapeSinglePage(row) : null,
          ...(notes.length ? { notes } : {}),
        };
      }
      const res = await ctx.tm.scrape.start({ urls: args.urls, formats, ...(cfg ? { config: cfg } : {}) });
      const { state, ended } = await waitForJob(
        ctx,
        extra,
        'batch',
        () => ctx.tm.scrape.get(res.data.id, { limit: 1 }),
        (s) => progressText('batch', s),
      );
      if (!ended)
        return {
          kind: 'scrape',
          ...jobState(state),
          notes: [...notes, `still running: call get_job with kind "scrape" and id "${state.id}" for the pages`],
        };
      return {
        kind: 'scrape',
        ...jobState(state),
        ...(await batchRows(ctx, state.id)),
        ...(notes.length ? { notes } : {}),
      };
    },
  }),
  defineTool({
    name: 'extract_url',
    title: 'Extract one URL thoroughly',
    description:
      'Read one URL with every engine the plan allows (the browser when plain HTTP is not enough) and return its extracted fields (give CSS or XPath selectors in config.fields, e.g. {"fields": {"price": ".price"}}), every body up to 12,000 characters, and the evidence behind its verdict (each engine tried, signals). Costs the credits of the engine that read it. Use scrape_urls for plain content of many pages.',
    input: {
      url: httpUrl.describe('the page to read'),
      config,
      parse_documents: parseDocuments,
    },
    readOnly: false,
    async run(args, ctx, extra) {
      const { config: cfg, notes } = await withDocuments(ctx, args.config, args.parse_documents);
      const started = await ctx.tm.playground.extract({
        url: args.url,
        allow_browser: true,
        ...(cfg ? { config: cfg } : {}),
      });
      const { state, ended } = await waitForJob(
        ctx,
        extra,
        'extract',
        () => ctx.tm.playground.get(started.id, { wait: 5 }),
        () => 'extract: reading',
      );
      return {
        kind: 'extract',
        id: state.id,
        status: state.status,
        creditsUsed: state.creditsUsed,
        page: state.result ? shapeSinglePage(state.result as RowLike) : null,
        evidence: state.evidence,
        ...(ended ? {} : { notes: ['still reading: call extract_url again later or scrape_urls'] }),
        ...(notes.length ? { notes } : {}),
      };
    },
  }),
  defineTool({
    name: 'map_site',
    title: 'Map a site',
    description:
      'List the URLs a site declares in its robots.txt sitemaps and feeds, without fetching the pages (1 credit per sitemap file read). Returns the totals and up to 500 URLs with their lastmod and sitemap section; page on with get_job (kind "map", the id and the cursor). Use it to see a site before crawling it.',
    input: {
      url: httpUrl.describe('the site (any URL on it)'),
      search: z.string().max(200).optional().describe('keep only URLs containing this text'),
      limit: z.number().int().min(1).max(50_000).optional().describe('most URLs to collect (default 5,000)'),
    },
    readOnly: false,
    async run(args, ctx, extra) {
      const res = await ctx.tm.map.start({
        url: args.url,
        ...(args.search ? { search: args.search } : {}),
        ...(args.limit ? { limit: args.limit } : {}),
      });
      let job = res.data;
      if (res.status === 202)
        job = (
          await waitForJob(
            ctx,
            extra,
            'map',
            () => ctx.tm.map.get(job.id, { limit: 1 }),
            () => 'map: reading sitemaps',
          )
        ).state;
      return mapIndex(ctx, job);
    },
  }),
  defineTool({
    name: 'crawl_site',
    title: 'Crawl a site',
    description:
      'Start a crawl from a URL: follows links and sitemaps within its host and reads each page (1 credit per plain page). Returns the crawl id at once; call get_job with kind "crawl" and that id to read the pages (an index of up to 500 pages and the markdown of as many as fit in 60,000 characters), or pass wait: true to wait for it here. The crawl can be kept as a standing project with keep_crawl_as_project.',
    input: {
      url: httpUrl.describe('where the crawl starts; its host is the scope'),
      limit: z.number().int().min(1).max(10_000).optional().describe('most pages to read (default 100 here)'),
      max_depth: z.number().int().min(0).max(100).optional().describe('link hops from the start URL'),
      include_paths: z
        .array(z.string().min(1).max(500))
        .max(200)
        .optional()
        .describe('globs a URL path must match, e.g. ["/docs/**"]'),
      exclude_paths: z
        .array(z.string().min(1).max(500))
        .max(200)
        .optional()
        .describe('globs that rule a path out, e.g. ["/tag/**"]'),
      allow_subdomains: z.boolean().optional().describe('follow links to subdomains too'),
      config,
      parse_documents: parseDocuments,
      wait: z.boolean().optional().describe('wait for the crawl to end and return its pages (default false)'),
    },
    readOnly: false,
    async run(args, ctx, extra) {
      const { config: cfg, notes } = await withDocuments(ctx, args.config, args.parse_documents);
      const started = await ctx.tm.crawl.start({
        url: args.url,
        limit: args.limit ?? 100,
        ...(args.max_depth !== undefined ? { maxDepth: args.max_depth } : {}),
        ...(args.include_paths ? { includePaths: args.include_paths } : {}),
        ...(args.exclude_paths ? { excludePaths: args.exclude_paths } : {}),
        ...(args.allow_subdomains !== undefined ? { allowSubdomains: args.allow_subdomains } : {}),
        ...(cfg ? { config: cfg } : {}),
      });
      const extraNotes = notes.length ? { notes } : {};
      if (!args.wait)
        return {
          kind: 'crawl',
          ...jobState(started),
          projectId: started.projectId,
          next_step: `call get_job with kind "crawl" and id "${started.id}" to read its pages (status tells whether it is still running)`,
          ...extraNotes,
        };
      const { state, ended } = await waitForJob(
        ctx,
        extra,
        'crawl',
        () => ctx.tm.crawl.get(started.id, { formats: '', limit: 1 }),
        (s) => progressText('crawl', s),
      );
      return {
        kind: 'crawl',
        ...jobState(state),
        ...(await crawlPages(ctx, state.id)),
        ...(ended ? {} : { notes: ['still running'] }),
        ...extraNotes,
      };
    },
  }),
  defineTool({
    name: 'keep_crawl_as_project',
    title: 'Keep a crawl as a project',
    description:
      'Turn a crawl (from crawl_site) into a standing project with its run in place, so later runs report what changed. A crawl not kept is discarded after a day.',
    input: {
      crawl_id: z.string().min(1).max(100).describe('the id crawl_site returned'),
      name: z.string().min(1).max(200).optional(),
      schedule: z.enum(['manual', 'daily', 'weekly']).optional().describe('when runs start (default manual)'),
    },
    readOnly: false,
    async run(args, ctx) {
      return {
        ...(await ctx.tm.crawl.keep(args.crawl_id, {
          ...(args.name ? { name: args.name } : {}),
          ...(args.schedule ? { schedule: args.schedule } : {}),
        })),
      };
    },
  }),
  defineTool({
    name: 'get_job',
    title: 'Read a job',
    description:
      'Read a scrape, crawl or map job by id: its status, progress and credits, and its pages — an index of up to 500 (URL, title, verdict, words, link count) with the markdown of as many as fit in 60,000 characters, and a cursor to read on. With url, returns that one page in full, each body up to 12,000 characters.',
    input: {
      kind: z.enum(['scrape', 'crawl', 'map']).describe('what the id names'),
      id: z.string().min(1).max(100),
      url: z.string().min(1).max(4096).optional().describe('one page of the job (scrape or crawl)'),
      cursor: z.string().min(1).max(200).optional().describe('the cursor of a previous answer, to read on'),
    },
    readOnly: true,
    async run(args, ctx) {
      if (args.kind === 'map') {
        if (args.url) throw new ToolRefusal('url: a map lists URLs and has no pages; read a page with scrape_urls');
        return mapIndex(ctx, await ctx.tm.map.get(args.id, { limit: 1 }), args.cursor);
      }
      if (args.kind === 'crawl') {
        if (args.url)
          return {
            kind: 'crawl',
            id: args.id,
            page: shapeSinglePage((await ctx.tm.crawl.page(args.id, args.url)) as RowLike),
          };
        const state: CrawlEnvelope = await ctx.tm.crawl.get(args.id, { formats: '', limit: 1 });
        return { kind: 'crawl', ...jobState(state), ...(await crawlPages(ctx, args.id, args.cursor)) };
      }
      if (args.url) {
        const wanted = normalise(args.url);
        for await (const row of ctx.tm.scrape.rows(args.id, { limit: 100 }))
          if (normalise(row.url) === wanted)
            return { kind: 'scrape', id: args.id, page: shapeSinglePage(row as RowLike) };
        return { kind: 'scrape', id: args.id, page: null, notes: [`no page of this job has the url ${args.url}`] };
      }
      const state = await ctx.tm.scrape.get(args.id, { limit: 1 });
      return { kind: 'scrape', ...jobState(state), ...(await batchRows(ctx, args.id, args.cursor)) };
    },
  }),
];

/** A URL as a page of a job is matched: either scheme, any case of host, with or without a trailing slash. */
const normalise = (url: string) => {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  const bare = url.slice(0, end).replace(/^https?:\/\//i, '');
  const slash = bare.indexOf('/');
  return slash < 0 ? bare.toLowerCase() : bare.slice(0, slash).toLowerCase() + bare.slice(slash);
};
