import { parse, positiveInt } from '../args.js';
import { commandContext } from '../context.js';
import { UsageError, WorkFailedError } from '../exit-codes.js';

export const mapUsage = 'map URL [--search TEXT] [--limit N]   the URLs a site’s sitemaps declare, one a line';

/** `map URL`: the site's declared URLs on stdout, one a line (--json: the job and every row). */
export const mapCommand = async (args: string[]): Promise<number> => {
  const { values, positionals } = parse(args, { search: { type: 'string' }, limit: { type: 'string' } });
  const ctx = commandContext(values);
  const [url, ...rest] = positionals;
  if (!url || rest.length) throw new UsageError(`usage: ${mapUsage}`);
  const limit = positiveInt(values.limit, '--limit');
  const tm = await ctx.client();
  const res = await tm.map.start({
    url,
    ...(values.search ? { search: values.search } : {}),
    ...(limit ? { limit } : {}),
  });
  const job = res.status === 202 ? await tm.map.wait(res.data.id, { intervalMs: 500 }) : res.data;
  if (job.status !== 'done')
    throw new WorkFailedError(`map ${job.id} ended ${job.status}${job.error ? `: ${job.error}` : ''}`);
  const rows = [];
  for await (const row of tm.map.rows(job.id, { limit: 1000 })) {
    if (ctx.json) rows.push(row);
    else ctx.out(row.url);
  }
  if (ctx.json) ctx.outJson({ ...job, data: rows, next: null, cursor: null });
  return 0;
};
