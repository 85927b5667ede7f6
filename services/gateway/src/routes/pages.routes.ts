import type { Request } from 'express';
import {
  configInputSchema,
  formatsSchema,
  LINK_SETS,
  linkSetSchema,
  PAGE_FLAGS,
  PAGE_VERDICTS,
  pageContentSchema,
  pageListSchema,
  pageSearchRequestSchema,
  pageSearchResultSchema,
  SCRAPE_FORMATS,
  type crawlPagesV1,
} from '@tidemark/contracts';
import { ApiError, ValidationError } from '@tidemark/errors';
import type { RpcClient } from '@tidemark/rpc';
import { z } from 'zod';
import { ROWS_DEADLINE_MS } from '../clients/service-clients.js';
import { errorEnvelopeSchema, idParam } from '../http/common.schemas.js';
import { nextLink } from '../http/pagination.js';
import { defineRoute } from '../http/route.js';
import {
  contentPreviewSchema,
  contentPreviewToRest,
  removedContentSchema,
  removedContentToRest,
} from '../mappers/content-preview.mapper.js';
import { linkSetToRest } from '../mappers/link-set.mapper.js';
import { toStruct } from '../mappers/proto-values.js';
import {
  pageContentToRest,
  pageListToRest,
  searchResultToRest,
  selectorMatchesSchema,
  selectorMatchesToRest,
} from '../mappers/project-pages.mapper.js';
import type { ProjectService } from '../services/project.service.js';

/** Bodies make a page of rows heavy: with any, at most this many rows. */
const MAX_ROWS_WITH_BODIES = 100;
/** A search scans every stored body of a run (in the scrape service): room for a large run. */
const SEARCH_DEADLINE_MS = 280_000;
/** The first dead-end question about a finished run reads its pages' stored links. */
const GRAPH_DEADLINE_MS = 60_000;
/** A full-page screenshot is megabytes, read through two services: 5 s was short on a busy machine. */
const SCREENSHOT_DEADLINE_MS = 30_000;

const runId = z.string().min(1).max(100).optional().describe('default: the latest finished run');
const cursor = z
  .string()
  .max(8200)
  .regex(/^[A-Za-z0-9_-]+$/, 'not a cursor this API gave out')
  .optional()
  .describe('from the `cursor` of the previous page');
const url = z.string().min(1).max(4096).describe('the page; either scheme, with or without a trailing slash');
const verdicts = z
  .string()
  .max(200)
  .transform((raw, ctx) => {
    const list = [
      ...new Set(
        raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ];
    const bad = list.find((v) => !(PAGE_VERDICTS as string[]).includes(v));
    if (bad) {
      ctx.addIssue({ code: 'custom', message: `"${bad}" is not a verdict (${PAGE_VERDICTS.join(', ')})` });
      return z.NEVER;
    }
    return list;
  })
  .describe(`verdicts kept, comma-separated: ${PAGE_VERDICTS.join(', ')}`);

const pagesQuery = z.object({
  run_id: runId,
  v: verdicts.optional(),
  flag: z.enum(PAGE_FLAGS).optional(),
  q: z
    .string()
    .max(1000)
    .optional()
    .describe('the query language, e.g. `status:403 depth:>2 url:/docs/ words:<100` (docs/decisions.md, Pages)'),
  cursor,
  limit: z.coerce.number().int().min(1).max(1000).default(100).describe('page size, 1 to 1000'),
  formats: formatsSchema
    .optional()
    .describe(`bodies returned with each row, comma-separated (${SCRAPE_FORMATS.join(', ')}); none by default`),
});

const runLinkParams = z.object({ id: z.string().min(1).max(100), run: z.string().min(1).max(100) });

/** A query the crawl service found invalid is the caller's query string: 400, as the gateway's own. */
const queryErrors = async <T>(call: Promise<T>): Promise<T> => {
  try {
    return await call;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'validation')
      throw new ValidationError(err.message, err.meta.details, 400);
    throw err;
  }
};

/** A body the scrape or crawl service found invalid names its field as the gateway does. */
const bodyErrors = async <T>(call: Promise<T>): Promise<T> => {
  try {
    return await call;
  } catch (err) {
    const named = err instanceof ApiError && err.code === 'validation' ? /^(q|mode): (.*)$/s.exec(err.message) : null;
    if (named) {
      const message = named[2]!;
      throw new ValidationError(
        `body.${named[1]}: ${message}`,
        { fields: [{ field: `body.${named[1]}`, message }] },
        422,
      );
    }
    throw err;
  }
};

const nextOf = (req: Request, limit: number, base?: string) => (cursor: string) => nextLink(req, cursor, limit, base);

/**
 * The pages of a project's runs: the gateway checks the key may see the project; the crawl
 * service reads the run, its link graph and (through scrape) the stored rows.
 */
export const pageRoutes = (
  pages: RpcClient<crawlPagesV1.PagesServiceClient>,
  projects: ProjectService,
  publicBaseUrl?: string,
) => [
  defineRoute({
    method: 'get',
    path: '/projects/:id/pages',
    tag: 'Pages',
    summary: 'Page rows of a run, filtered by verdict, flag and the query language',
    description: `Rows as GET /crawl/{id} shows them (the page row plus the link graph), in the order the run found the URLs. \`q\` is space-separated terms, all required: \`field:value\`, \`field:>n\` (also >=, <, <=) on numbers, \`"quoted values"\`, \`-term\` to negate, and bare words matching the URL. Fields: url, title, host, referer (contain); status, depth, words, inLinks, outLinks, credits (numbers); verdict, errorCode, foundVia, method, tier, language (one of, comma-separated); inSitemap, orphan, unlisted, deadEnd (true/false). A bad term answers 400 naming it. \`limit\` 1–1,000 (default 100), at most ${MAX_ROWS_WITH_BODIES} with \`formats\`, and no more than ~32 MB of bodies an answer (at least one row): \`next\` goes on from the first row left out.`,
    scope: 'read',
    params: idParam,
    query: pagesQuery,
    responses: { 200: { description: 'page rows of the run', schema: pageListSchema } },
    handler: async ({ auth, params, query, req }) => {
      if (query.formats?.length && query.limit > MAX_ROWS_WITH_BODIES)
        throw new ValidationError(`query.limit: at most ${MAX_ROWS_WITH_BODIES} with formats`, undefined, 400);
      await projects.get(auth, params.id);
      const res = await queryErrors(
        pages.call(
          'listPages',
          {
            workspaceId: auth.workspaceId,
            projectId: params.id,
            runId: query.run_id ?? '',
            verdicts: query.v ?? [],
            flag: query.flag ?? '',
            q: query.q ?? '',
            cursor: query.cursor ?? '',
            limit: query.limit,
            formats: query.formats ?? [],
          },
          GRAPH_DEADLINE_MS,
        ),
      );
      return { status: 200, body: pageListToRest(res, nextOf(req, query.limit, publicBaseUrl)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/projects/:id/pages/content',
    tag: 'Pages',
    summary: 'One stored page in full: bodies, head, fields, and its versions in earlier runs',
    description:
      'The URL matches under either scheme and with or without a trailing slash. `format` picks the bodies (comma-separated); every body kept by default. `versions` lists the URL in the project’s runs before this one, newest first.',
    scope: 'read',
    params: idParam,
    query: z.object({
      url,
      run_id: runId,
      format: formatsSchema.optional().describe(`bodies, comma-separated (${SCRAPE_FORMATS.join(', ')}); default all`),
    }),
    responses: { 200: { description: 'the page', schema: pageContentSchema } },
    handler: async ({ auth, params, query }) => {
      await projects.get(auth, params.id);
      const res = await queryErrors(
        pages.call(
          'getPageContent',
          {
            workspaceId: auth.workspaceId,
            projectId: params.id,
            runId: query.run_id ?? '',
            url: query.url,
            formats: query.format ?? [],
          },
          ROWS_DEADLINE_MS,
        ),
      );
      return { status: 200, body: pageContentToRest(res) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/projects/:id/pages/screenshot',
    tag: 'Pages',
    summary: 'The screenshot stored with a page, JPEG or PNG (404 when none was taken)',
    scope: 'read',
    params: idParam,
    query: z.object({ url, run_id: runId }),
    responses: { 200: { description: 'image/jpeg, or image/png when config screenshot.format is png' } },
    handler: async ({ auth, params, query }) => {
      await projects.get(auth, params.id);
      const res = await queryErrors(
        pages.call(
          'getPageScreenshot',
          {
            workspaceId: auth.workspaceId,
            projectId: params.id,
            runId: query.run_id ?? '',
            url: query.url,
          },
          SCREENSHOT_DEADLINE_MS,
        ),
      );
      const image = Buffer.from(res.jpeg);
      // JPEG, or PNG when the screenshot was asked for so (a PNG starts with byte 0x89).
      return { status: 200, raw: image, headers: { 'Content-Type': image[0] === 0x89 ? 'image/png' : 'image/jpeg' } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/projects/:id/runs/:run/links',
    tag: 'Pages',
    summary: 'One set of a run’s link graph (orphans, unlisted, dead_ends), by URL, with its coverage',
    description:
      '`coverage.verdict` says whether the set can be taken as the truth about the site, and `reason` why not: orphans need a run that read the whole site and its sitemap, unlisted needs a whole sitemap, dead ends need the pages’ stored links.',
    scope: 'read',
    params: runLinkParams,
    query: z.object({
      kind: z.enum(LINK_SETS).default('orphans'),
      cursor,
      limit: z.coerce.number().int().min(1).max(1000).default(100).describe('page size, 1 to 1000'),
    }),
    responses: { 200: { description: 'the set', schema: linkSetSchema } },
    handler: async ({ auth, params, query, req }) => {
      await projects.get(auth, params.id);
      const res = await queryErrors(
        pages.call(
          'listLinks',
          {
            workspaceId: auth.workspaceId,
            projectId: params.id,
            runId: params.run,
            kind: query.kind,
            cursor: query.cursor ?? '',
            limit: query.limit,
          },
          GRAPH_DEADLINE_MS,
        ),
      );
      return { status: 200, body: linkSetToRest(res, nextOf(req, query.limit, publicBaseUrl)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/projects/:id/pages/search',
    tag: 'Pages',
    summary: 'Search the stored pages of a run: words and phrases, or a CSS / XPath selector',
    description:
      'content: words and "quoted phrases" over stored markdown, every one required, whole words, any case. selector: CSS, or XPath when q starts with / or (, over stored html (the raw html when kept, else cleanHtml). A scan of what is stored; nothing is fetched. Pages without the body are counted as unscanned.',
    scope: 'read',
    params: idParam,
    body: pageSearchRequestSchema,
    responses: { 200: { description: 'matches and counts', schema: pageSearchResultSchema } },
    handler: async ({ auth, params, body }) => {
      await projects.get(auth, params.id);
      const res = await bodyErrors(
        pages.call(
          'searchPages',
          {
            workspaceId: auth.workspaceId,
            projectId: params.id,
            runId: body.run_id ?? '',
            mode: body.mode,
            q: body.q,
          },
          SEARCH_DEADLINE_MS,
        ),
      );
      return { status: 200, body: searchResultToRest(res) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/projects/:id/selectors/match',
    tag: 'Pages',
    summary: 'Match counts per selector on the stored html of a run; nothing fetched',
    description:
      'Per selector (CSS, or XPath starting with / or (): the pages it matches, the nodes, the first pages, and how many pages had html to scan. Up to 20 selectors.',
    scope: 'read',
    params: idParam,
    body: z.strictObject({
      selectors: z.array(z.string().min(1).max(1000)).min(1).max(20),
      run_id: runId,
    }),
    responses: { 200: { description: 'counts per selector', schema: selectorMatchesSchema } },
    handler: async ({ auth, params, body }) => {
      await projects.get(auth, params.id);
      const res = await pages.call(
        'matchSelectors',
        { workspaceId: auth.workspaceId, projectId: params.id, runId: body.run_id ?? '', selectors: body.selectors },
        SEARCH_DEADLINE_MS,
      );
      return { status: 200, body: selectorMatchesToRest(res) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/projects/:id/content/preview',
    tag: 'Pages',
    summary: 'What the content filters make of one stored page, with unsaved config changes',
    description:
      'Runs the content pipeline on the stored html of a page of the last finished run (the home page by default) under the saved config with `config` on top: verdict, words, language, markdown, fields. Needs the page’s html (STORE_HTML home keeps the home page’s); 409 otherwise. Nothing is fetched or saved.',
    scope: 'read',
    params: idParam,
    body: z.strictObject({
      config: configInputSchema.optional(),
      page: z.string().min(1).max(2048).optional().describe('default: the project’s home page (its seed)'),
    }),
    responses: { 200: { description: 'the preview', schema: contentPreviewSchema } },
    handler: async ({ auth, params, body }) => {
      await projects.get(auth, params.id);
      const res = await pages.call('previewContent', {
        workspaceId: auth.workspaceId,
        projectId: params.id,
        url: body.page ?? '',
        draft: body.config ? toStruct(body.config) : undefined,
      });
      return { status: 200, body: contentPreviewToRest(res) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/projects/:id/pages/removed',
    tag: 'Pages',
    summary: 'What the content filters take out of one stored page under the current config',
    description:
      'Excluded selectors, hidden and non-content elements, banners and cookie notices, base64 images and, with only_main_content, what lies outside the main content: each with its reason, a short selector, its words and the start of its text; counts per reason. Needs the page’s stored html (409 otherwise). Pages present in an earlier run and absent from this one are the `removed` entries of GET /projects/{id}/changes.',
    scope: 'read',
    params: idParam,
    query: z.object({ url: z.string().min(1).max(2048), run_id: runId }),
    responses: {
      200: { description: 'what was taken out', schema: removedContentSchema },
      409: { description: 'the page’s html is not stored (conflict)', schema: errorEnvelopeSchema },
      422: {
        description:
          'the project’s include_tags or exclude_tags took more than the reading budget on this page (validation)',
        schema: errorEnvelopeSchema,
      },
    },
    handler: async ({ auth, params, query }) => {
      await projects.get(auth, params.id);
      const res = await pages.call('removedContent', {
        workspaceId: auth.workspaceId,
        projectId: params.id,
        url: query.url,
        runId: query.run_id ?? '',
      });
      return { status: 200, body: removedContentToRest(res) };
    },
  }),
];
