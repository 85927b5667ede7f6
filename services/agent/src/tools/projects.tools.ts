import { z } from 'zod';
import type { ChangeRecord, Project, Run } from '@tidemark/sdk';
import { LIMITS, shapeSinglePage, type RowLike } from '../shaping/shape.js';
import { defineTool, progressText, readShapedPages, waitForJob } from './tool-context.js';

const projectId = z.string().min(1).max(100).describe('the project id (list_projects shows them)');
const runId = z.string().min(1).max(100).optional().describe('a run of the project (default: the latest finished run)');
const schedule = z.enum(['manual', 'daily', 'weekly']).optional().describe('when runs start by themselves');
const config = z
  .record(z.string(), z.unknown())
  .optional()
  .describe(
    'configuration keys (describe_project_config lists them with their defaults); an unknown key is refused by name',
  );
const httpUrl = z
  .string()
  .max(2048)
  .regex(/^https?:\/\//i, 'an http(s) URL');

const projectSummary = (p: Project) => ({
  id: p.id,
  name: p.name,
  seed: p.seed,
  host: p.host,
  schedule: p.schedule,
  updatedAt: p.updatedAt,
});

const runSummary = (r: Run) => ({
  id: r.id,
  projectId: r.projectId,
  status: r.status,
  trigger: r.trigger,
  progress: r.progress,
  counts: r.counts,
  creditsUsed: r.creditsUsed,
  stop: r.stop,
  createdAt: r.createdAt,
  finishedAt: r.finishedAt,
});

/** A change record with its entries bounded like an index (500). */
export const shapeChanges = (record: ChangeRecord) => {
  const { entries, ...rest } = record;
  return {
    ...rest,
    entries: entries.slice(0, LIMITS.indexPages),
    ...(entries.length > LIMITS.indexPages ? { entriesNotShown: entries.length - LIMITS.indexPages } : {}),
  };
};

export const projectTools = [
  defineTool({
    name: 'describe_project_config',
    title: 'Describe the project configuration',
    description:
      'Every configuration key a project, crawl or scrape accepts, by group (scope, fetch, content, output, advanced), with its type, default and meaning, and the short aliases a crawl takes. Read it before create_project or update_project.',
    input: {},
    readOnly: true,
    async run(_args, ctx) {
      const meta = await ctx.tm.workspace.meta();
      return { groups: meta.config.keys, aliases: meta.config.aliases };
    },
  }),
  defineTool({
    name: 'list_projects',
    title: 'List projects',
    description:
      'The standing projects this key may see (newest first, up to 500): id, name, seed URL, host, schedule. Each project re-crawls its site and records what changed between runs.',
    input: {},
    readOnly: true,
    async run(_args, ctx) {
      const projects: ReturnType<typeof projectSummary>[] = [];
      let more = false;
      for await (const p of ctx.tm.projects.all({ limit: 100 })) {
        if (projects.length === LIMITS.indexPages) {
          more = true;
          break;
        }
        projects.push(projectSummary(p));
      }
      return { projects, ...(more ? { notes: [`only the newest ${LIMITS.indexPages} are listed`] } : {}) };
    },
  }),
  defineTool({
    name: 'get_project',
    title: 'Get a project',
    description: 'One project with its whole saved configuration (and its version), schedule and retention.',
    input: { project_id: projectId },
    readOnly: true,
    async run(args, ctx) {
      return { ...(await ctx.tm.projects.get(args.project_id)) };
    },
  }),
  defineTool({
    name: 'create_project',
    title: 'Create a project',
    description:
      'Create a standing project that watches a site: a seed URL, an optional name, schedule (manual by default) and configuration. Nothing is fetched until a run starts (start_run, or the schedule).',
    input: {
      seed: httpUrl.describe('the site’s starting URL'),
      name: z.string().min(1).max(200).optional(),
      schedule,
      config,
    },
    readOnly: false,
    async run(args, ctx) {
      return {
        ...(await ctx.tm.projects.create({
          seed: args.seed,
          ...(args.name ? { name: args.name } : {}),
          ...(args.schedule ? { schedule: args.schedule } : {}),
          ...(args.config ? { config: args.config as never } : {}),
        })),
      };
    },
  }),
  defineTool({
    name: 'update_project',
    title: 'Update a project',
    description:
      'Change a project’s name, schedule or configuration. A partial config merges into the saved one (only the keys given change); an unknown key is refused by name.',
    input: { project_id: projectId, name: z.string().min(1).max(200).optional(), schedule, config },
    readOnly: false,
    async run(args, ctx) {
      return {
        ...(await ctx.tm.projects.update(args.project_id, {
          ...(args.name ? { name: args.name } : {}),
          ...(args.schedule ? { schedule: args.schedule } : {}),
          ...(args.config ? { config: args.config as never } : {}),
        })),
      };
    },
  }),
  defineTool({
    name: 'start_run',
    title: 'Start a run',
    description:
      'Start a run of a project now: it re-crawls the site by the saved configuration and compares it with the run before. Refused (conflict) while a run is queued or running. With wait: true, waits for the run and returns its change record (counts of added, removed and modified pages, coverage, up to 500 entries).',
    input: {
      project_id: projectId,
      wait: z.boolean().optional().describe('wait for the run and return its change record (default false)'),
    },
    readOnly: false,
    async run(args, ctx, extra) {
      const run = await ctx.tm.runs.start(args.project_id);
      if (!args.wait) return { run: runSummary(run), next_step: 'get_changes once the run is done' };
      const { state, ended } = await waitForJob(
        ctx,
        extra,
        'run',
        () => ctx.tm.runs.get(args.project_id, run.id),
        (s) => progressText('run', s),
      );
      if (!ended) return { run: runSummary(state), notes: ['still running: call get_changes with this run_id later'] };
      const { changes } = await ctx.tm.runs.waitForChanges(args.project_id, run.id, {
        intervalMs: ctx.pollMs,
        signal: extra.signal,
      });
      return { run: runSummary(state), changes: shapeChanges(changes) };
    },
  }),
  defineTool({
    name: 'list_pages',
    title: 'List a run’s pages',
    description:
      'The pages a project’s run stored: an index of up to 500 (URL, title, verdict, words, link count) and the markdown of as many as fit in 60,000 characters; the cursor reads on. Filter by verdict (ok, thin, blocked, skipped, robots, cached).',
    input: {
      project_id: projectId,
      run_id: runId,
      verdict: z.enum(['ok', 'thin', 'blocked', 'skipped', 'robots', 'cached']).optional(),
      cursor: z.string().min(1).max(200).optional().describe('the cursor of a previous answer, to read on'),
    },
    readOnly: true,
    async run(args, ctx) {
      const shaped = await readShapedPages(
        async (q) =>
          (await ctx.tm.pages.list(args.project_id, {
            ...q,
            ...(args.run_id ? { run_id: args.run_id } : {}),
            ...(args.verdict ? { v: args.verdict } : {}),
          })) as { data: RowLike[]; next: string | null; cursor: string | null },
        args.cursor,
      );
      return { projectId: args.project_id, ...shaped };
    },
  }),
  defineTool({
    name: 'get_page',
    title: 'Get a stored page',
    description:
      'One stored page of a project’s run in full: each body (markdown, text, cleaned and raw html) up to 12,000 characters, head data, extracted fields, verdict, and the versions of it kept.',
    input: { project_id: projectId, url: z.string().min(1).max(4096).describe('the page’s URL'), run_id: runId },
    readOnly: true,
    async run(args, ctx) {
      const page = await ctx.tm.pages.content(args.project_id, {
        url: args.url,
        ...(args.run_id ? { run_id: args.run_id } : {}),
      });
      return shapeSinglePage(page as RowLike);
    },
  }),
  defineTool({
    name: 'get_changes',
    title: 'Get what changed',
    description:
      'The change record of a project’s run against the run before: counts (added, removed, modified, same, …), whether the comparison covers the site (coverage), up to 500 entries (one per changed page), and the digest when one is configured.',
    input: { project_id: projectId, run_id: runId },
    readOnly: true,
    async run(args, ctx) {
      return shapeChanges(await ctx.tm.changes.get(args.project_id, args.run_id ? { run_id: args.run_id } : {}));
    },
  }),
  defineTool({
    name: 'search_pages',
    title: 'Search stored pages',
    description:
      'Search the pages a project’s run stored, without fetching anything: mode "content" (default) finds pages whose markdown says the words or "quoted phrases"; mode "selector" finds pages whose html contains a CSS selector or an XPath (starting with / or ().',
    input: {
      project_id: projectId,
      q: z.string().min(1).max(1000).describe('words, or a selector in selector mode'),
      mode: z.enum(['content', 'selector']).optional(),
      run_id: runId,
    },
    readOnly: true,
    async run(args, ctx) {
      const found = await ctx.tm.pages.search(args.project_id, {
        q: args.q,
        ...(args.mode ? { mode: args.mode } : {}),
        ...(args.run_id ? { run_id: args.run_id } : {}),
      });
      const matches = found.matches.slice(0, LIMITS.indexPages);
      return {
        ...found,
        matches,
        ...(found.matches.length > matches.length ? { matchesNotShown: found.matches.length - matches.length } : {}),
      };
    },
  }),
  defineTool({
    name: 'recrawl_pages',
    title: 'Re-crawl some pages',
    description:
      'Fetch exactly these pages of a project again now, as a run of their own (its change record compares them with the last full run). Costs credits per page. Returns the run; get_changes with its id once done.',
    input: { project_id: projectId, urls: z.array(httpUrl).min(1).max(1000).describe('pages of the project’s site') },
    readOnly: false,
    async run(args, ctx) {
      return { run: runSummary(await ctx.tm.pages.recrawl(args.project_id, { urls: args.urls })) };
    },
  }),
];
