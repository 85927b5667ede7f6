import { resolve } from 'node:path';
import { Tidemark } from '@tidemark/sdk';
import { readFirstKey } from '../first-key.js';
import { UsageError } from './exit-codes.js';
import { ProgressBar } from './progress-bar.js';

/** The options every client command takes. */
export const GLOBAL_OPTIONS = {
  json: { type: 'boolean', default: false },
  key: { type: 'string' },
  api: { type: 'string' },
} as const;

export interface CommandContext {
  json: boolean;
  /** The API client (made on first use: `--help` needs no key). */
  client(): Promise<Tidemark>;
  out(line: string): void;
  /** Machine-readable output for --json: one JSON document. */
  outJson(value: unknown): void;
  /** A progress line on stderr, drawn only on a terminal and never with --json. */
  progress(): ProgressBar;
}

/**
 * The key comes from --key, TIDEMARK_API_KEY, or the first workspace's admin key that `pnpm start`
 * keeps in .tidemark/first-key; the API root from --api, TIDEMARK_API_URL, or 127.0.0.1:8080/v1.
 */
export const commandContext = (
  values: { json?: boolean; key?: string; api?: string },
  env = process.env,
): CommandContext => {
  let made: Tidemark | undefined;
  return {
    json: values.json === true,
    async client() {
      if (made) return made;
      let apiKey = values.key ?? env.TIDEMARK_API_KEY;
      apiKey ??= (await readFirstKey(resolve(env.TIDEMARK_HOME ?? '.tidemark', 'first-key')))?.apiKey;
      if (!apiKey)
        throw new UsageError('no API key: pass --key, set TIDEMARK_API_KEY, or run `pnpm start` once (it saves one)');
      made = new Tidemark({
        apiKey,
        ...((values.api ?? env.TIDEMARK_API_URL) ? { baseUrl: values.api ?? env.TIDEMARK_API_URL } : {}),
      });
      return made;
    },
    out: (line) => void process.stdout.write(`${line}\n`),
    outJson: (value) => void process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    progress: () => new ProgressBar(process.stderr, values.json !== true),
  };
};
