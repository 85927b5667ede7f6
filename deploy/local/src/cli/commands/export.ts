import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { parse } from '../args.js';
import { commandContext } from '../context.js';
import { UsageError } from '../exit-codes.js';
import { formatBytes, formatSeconds } from '../progress-bar.js';

const DATASETS = ['pages', 'markdown', 'changes', 'fields', 'sitemap', 'llms', 'llms-full'] as const;
const FORMATS = ['jsonl', 'csv', 'txt'] as const;

export const exportUsage = `export PROJECT --dataset ${DATASETS.join('|')} [--format jsonl|csv|txt] [--run RUN] [-o FILE]   streamed`;

/**
 * `export PROJECT --dataset llms -o FILE`: the dataset streamed to FILE (or stdout), never held in
 * memory, with a byte count on stderr (a terminal only). The bar has no end when the size is not
 * known in advance (a streamed export has no Content-Length).
 */
export const exportCommand = async (args: string[]): Promise<number> => {
  const { values, positionals } = parse(args, {
    dataset: { type: 'string' },
    format: { type: 'string' },
    run: { type: 'string' },
    output: { type: 'string', short: 'o' },
  });
  const ctx = commandContext(values);
  const [projectId, ...rest] = positionals;
  if (!projectId || rest.length || !values.dataset) throw new UsageError(`usage: ${exportUsage}`);
  if (!(DATASETS as readonly string[]).includes(values.dataset))
    throw new UsageError(`--dataset takes ${DATASETS.join(', ')}, not "${values.dataset}"`);
  if (values.format !== undefined && !(FORMATS as readonly string[]).includes(values.format))
    throw new UsageError(`--format takes ${FORMATS.join(', ')}, not "${values.format}"`);
  const tm = await ctx.client();
  const started = Date.now();
  const res = await tm.exports.download(projectId, {
    dataset: values.dataset as (typeof DATASETS)[number],
    ...(values.format ? { format: values.format as (typeof FORMATS)[number] } : {}),
    ...(values.run ? { run_id: values.run } : {}),
  });
  const total = Number(res.headers.get('content-length') ?? NaN);
  const bar = ctx.progress();
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      bar.update(Number.isFinite(total) && total > 0 ? bytes / total : null, `${values.dataset} ${formatBytes(bytes)}`);
      done(null, chunk);
    },
  });
  const target = values.output ? createWriteStream(values.output) : process.stdout;
  try {
    await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), count, target, {
      end: !!values.output,
    });
  } finally {
    bar.done();
  }
  const summary = { file: values.output ?? null, bytes, runId: res.headers.get('x-run-id'), dataset: values.dataset };
  const line = [
    `wrote ${formatBytes(bytes)} of ${values.dataset} (run ${summary.runId})`,
    ...(values.output ? [`to ${values.output}`] : []),
    `in ${formatSeconds(Date.now() - started)}`,
  ].join(' ');
  // With no file, stdout is the data: the summary goes to stderr.
  if (!values.output) process.stderr.write(`${line}\n`);
  else if (ctx.json) ctx.outJson(summary);
  else ctx.out(line);
  return 0;
};
