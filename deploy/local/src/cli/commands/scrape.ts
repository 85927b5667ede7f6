import { parse } from '../args.js';
import { commandContext } from '../context.js';
import { UsageError, WorkFailedError } from '../exit-codes.js';

const FORMATS = {
  markdown: 'markdown',
  text: 'text',
  cleanHtml: 'cleanHtml',
  rawHtml: 'html',
  links: 'links',
} as const;
type Format = keyof typeof FORMATS;
/** Verdicts of a page that was read (a refused, missing or skipped page prints no body). */
const READ = new Set(['ok', 'thin', 'cached']);

export const scrapeUsage = 'scrape URL [-f markdown|text|cleanHtml|rawHtml|links]   one page, its body on stdout';

/** `scrape URL [-f FORMAT]`: one page now; its body (markdown by default) on stdout. */
export const scrapeCommand = async (args: string[]): Promise<number> => {
  const { values, positionals } = parse(args, { format: { type: 'string', short: 'f', default: 'markdown' } });
  const ctx = commandContext(values);
  const [url, ...rest] = positionals;
  if (!url || rest.length) throw new UsageError(`usage: ${scrapeUsage}`);
  const format = values.format as string;
  if (!(format in FORMATS)) throw new UsageError(`-f takes ${Object.keys(FORMATS).join(', ')}, not "${format}"`);
  const tm = await ctx.client();
  const res = await tm.scrape.start({ url, formats: format });
  const job = res.status === 202 ? await tm.scrape.wait(res.data.id, { intervalMs: 500 }) : res.data;
  if (ctx.json) {
    ctx.outJson(job);
    return 0;
  }
  const row = job.data[0];
  const value = row?.[FORMATS[format as Format]];
  const body = Array.isArray(value) ? value.join('\n') : typeof value === 'string' ? value : '';
  if (!row || !READ.has(row.verdict ?? ''))
    throw new WorkFailedError(
      `${url} was not read: ${row ? `${row.verdict ?? row.status} (${row.errorCode ?? 'no code'})${row.reason ? `, ${row.reason}` : ''}` : (job.error ?? job.status)}`,
    );
  process.stdout.write(body.endsWith('\n') ? body : `${body}\n`);
  if (process.stderr.isTTY)
    process.stderr.write(
      `${row.verdict} · ${row.credits} credit${row.credits === 1 ? '' : 's'} · ${row.method ?? row.tier ?? ''}\n`,
    );
  return 0;
};
