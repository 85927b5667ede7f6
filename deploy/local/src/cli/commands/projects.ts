import type { ChangeRecord, Run } from '@tidemark/sdk';
import { parse } from '../args.js';
import { commandContext, type CommandContext } from '../context.js';
import { UsageError, WorkFailedError } from '../exit-codes.js';
import { formatSeconds } from '../progress-bar.js';

export const projectsUsage = [
  'projects list                                        the projects this key sees',
  'projects create SEED [--name N] [--schedule manual|daily|weekly] [--config JSON]',
  'projects run PROJECT [--wait]                        start a run; --wait shows it and its changes',
].join('\n  ');

const SCHEDULES = ['manual', 'daily', 'weekly'] as const;

export const changeCounts = (c: ChangeRecord) =>
  `${c.counts.added} added, ${c.counts.removed} removed, ${c.counts.modified} modified, ${c.counts.same} same`;
const runText = (r: Run) =>
  `${r.progress.done}/${r.progress.total} pages · ${r.progress.queued} queued · ${r.creditsUsed} credit${r.creditsUsed === 1 ? '' : 's'}`;

const list = async (ctx: CommandContext) => {
  const tm = await ctx.client();
  const projects = [];
  for await (const p of tm.projects.all()) projects.push(p);
  if (ctx.json) return ctx.outJson(projects);
  if (!projects.length) return ctx.out('no projects yet: pnpm tidemark projects create SEED');
  const width = Math.max(...projects.map((p) => p.id.length));
  const named = Math.min(30, Math.max(4, ...projects.map((p) => (p.name ?? '').length)));
  for (const p of projects)
    ctx.out(
      `${p.id.padEnd(width)}  ${(p.name ?? '').slice(0, named).padEnd(named)}  ${p.schedule.padEnd(7)}  ${p.seed}`,
    );
};

const create = async (
  ctx: CommandContext,
  seed: string,
  values: { name?: string; schedule?: string; config?: string },
) => {
  if (values.schedule !== undefined && !(SCHEDULES as readonly string[]).includes(values.schedule))
    throw new UsageError(`--schedule takes ${SCHEDULES.join(', ')}, not "${values.schedule}"`);
  let config: Record<string, unknown> | undefined;
  if (values.config !== undefined) {
    try {
      config = JSON.parse(values.config) as Record<string, unknown>;
    } catch {
      throw new UsageError('--config takes a JSON object, e.g. \'{"max_pages": 200}\'');
    }
  }
  const tm = await ctx.client();
  const project = await tm.projects.create({
    seed,
    ...(values.name ? { name: values.name } : {}),
    ...(values.schedule ? { schedule: values.schedule as (typeof SCHEDULES)[number] } : {}),
    ...(config ? { config: config as never } : {}),
  });
  if (ctx.json) ctx.outJson(project);
  else
    ctx.out(
      [`project ${project.id}`, ...(project.name ? [project.name] : []), `(${project.schedule})`, project.seed].join(
        ' ',
      ),
    );
};

const run = async (ctx: CommandContext, projectId: string, wait: boolean) => {
  const tm = await ctx.client();
  const started = Date.now();
  const run = await tm.runs.start(projectId);
  if (!wait) {
    if (ctx.json) ctx.outJson(run);
    else ctx.out(`run ${run.id} ${run.status}`);
    return;
  }
  const bar = ctx.progress();
  try {
    const { run: end, changes } = await tm.runs.waitForChanges(projectId, run.id, {
      intervalMs: 500,
      onProgress: (r) =>
        bar.update(r.progress.total ? r.progress.done / r.progress.total : null, `${run.id}  ${runText(r)}`),
    });
    bar.done();
    if (ctx.json) ctx.outJson({ run: end, changes });
    else
      ctx.out(
        `run ${end.id} ${end.status}: ${runText(end)} in ${formatSeconds(Date.now() - started)}; changes: ${changeCounts(changes)}`,
      );
    if (end.status !== 'done')
      throw new WorkFailedError(`run ${end.id} ended ${end.status}${end.stop ? ` (${end.stop})` : ''}`);
  } finally {
    bar.done();
  }
};

/** `projects list|create|run`. */
export const projectsCommand = async (args: string[]): Promise<number> => {
  const [verb, ...rest] = args;
  const { values, positionals } = parse(rest, {
    name: { type: 'string' },
    schedule: { type: 'string' },
    config: { type: 'string' },
    wait: { type: 'boolean', default: false },
  });
  const ctx = commandContext(values);
  if (verb === 'list' && positionals.length === 0) await list(ctx);
  else if (verb === 'create' && positionals.length === 1) await create(ctx, positionals[0]!, values);
  else if (verb === 'run' && positionals.length === 1) await run(ctx, positionals[0]!, values.wait === true);
  else throw new UsageError(`usage:\n  ${projectsUsage}`);
  return 0;
};
