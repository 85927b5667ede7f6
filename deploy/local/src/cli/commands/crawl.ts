import type { CrawlEnvelope } from '@tidemark/sdk';
import { parse, positiveInt } from '../args.js';
import { commandContext } from '../context.js';
import { UsageError, WorkFailedError } from '../exit-codes.js';
import { formatSeconds } from '../progress-bar.js';

export const crawlUsage =
  'crawl URL [--limit N] [--max-depth N] [--include GLOB]... [--exclude GLOB]... [--watch]   a site; --watch shows its progress';

const progressText = (e: CrawlEnvelope) =>
  `${e.progress.done}/${e.progress.total} pages · ${e.progress.queued} queued · ${e.creditsUsed} credit${e.creditsUsed === 1 ? '' : 's'}`;

/**
 * `crawl URL --limit N --watch`: starts a crawl; with --watch follows it with a progress bar on
 * stderr (a terminal only) and ends with a summary line. Ctrl-C stops watching, not the crawl.
 */
export const crawlCommand = async (args: string[]): Promise<number> => {
  const { values, positionals } = parse(args, {
    limit: { type: 'string' },
    'max-depth': { type: 'string' },
    include: { type: 'string', multiple: true },
    exclude: { type: 'string', multiple: true },
    watch: { type: 'boolean', default: false },
  });
  const ctx = commandContext(values);
  const [url, ...rest] = positionals;
  if (!url || rest.length) throw new UsageError(`usage: ${crawlUsage}`);
  const limit = positiveInt(values.limit, '--limit');
  const maxDepth = values['max-depth'] === undefined ? undefined : Number(values['max-depth']);
  if (maxDepth !== undefined && !(Number.isInteger(maxDepth) && maxDepth >= 0))
    throw new UsageError(`--max-depth takes a whole number, not "${values['max-depth']}"`);
  const tm = await ctx.client();
  const started = Date.now();
  const crawl = await tm.crawl.start({
    url,
    ...(limit ? { limit } : {}),
    ...(maxDepth !== undefined ? { maxDepth } : {}),
    ...(values.include ? { includePaths: values.include } : {}),
    ...(values.exclude ? { excludePaths: values.exclude } : {}),
  });
  if (!values.watch) {
    if (ctx.json) ctx.outJson(crawl);
    else ctx.out(`crawl ${crawl.id} ${crawl.status}`);
    return 0;
  }
  const bar = ctx.progress();
  const stopWatching = () => {
    bar.done();
    process.stderr.write(`stopped watching; crawl ${crawl.id} goes on\n`);
    process.exit(130);
  };
  process.once('SIGINT', stopWatching);
  try {
    const end = await tm.crawl.wait(crawl.id, {
      intervalMs: 500,
      onProgress: (e) =>
        bar.update(e.progress.total ? e.progress.done / e.progress.total : null, `${crawl.id}  ${progressText(e)}`),
    });
    bar.done();
    if (ctx.json) ctx.outJson(end);
    else
      ctx.out(
        `crawl ${end.id} ${end.status}: ${progressText(end)} in ${formatSeconds(Date.now() - started)}${end.stop ? ` (stop: ${end.stop})` : ''}`,
      );
    if (end.status !== 'done')
      throw new WorkFailedError(`crawl ${end.id} ended ${end.status}${end.error ? `: ${end.error}` : ''}`);
    return 0;
  } finally {
    process.off('SIGINT', stopWatching);
    bar.done();
  }
};
