import { parse } from '../args.js';
import { commandContext } from '../context.js';
import { UsageError } from '../exit-codes.js';
import { changeCounts } from './projects.js';

export const changesUsage = 'changes PROJECT [--run RUN]   what the run (the latest by default) changed';

/** `changes PROJECT`: the change record's counts, then one line per changed page. */
export const changesCommand = async (args: string[]): Promise<number> => {
  const { values, positionals } = parse(args, { run: { type: 'string' } });
  const ctx = commandContext(values);
  const [projectId, ...rest] = positionals;
  if (!projectId || rest.length) throw new UsageError(`usage: ${changesUsage}`);
  const tm = await ctx.client();
  const record = await tm.changes.get(projectId, values.run ? { run_id: values.run } : {});
  if (ctx.json) {
    ctx.outJson(record);
    return 0;
  }
  ctx.out(`run ${record.runId} against ${record.baseline ?? 'nothing (first run)'}: ${changeCounts(record)}`);
  if (!record.coverage.verdict) ctx.out(`not a verdict on the whole site: ${record.coverage.reason}`);
  for (const entry of record.entries)
    ctx.out(`${entry.kind.padEnd(10)} ${entry.url}${entry.movedFrom ? ` (moved from ${entry.movedFrom})` : ''}`);
  return 0;
};
