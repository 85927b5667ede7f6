// `pnpm --filter @tidemark/gateway openapi FILE`: writes the OpenAPI document (what
// GET /v1/docs/openapi.json serves) to FILE, with no server or database running. `pnpm gen` runs
// it for libs/sdk, whose types are generated from the document.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { describeApi } from './describe-api.js';

const out = process.argv[2];
if (!out) {
  process.stderr.write('usage: write-openapi.ts FILE\n');
  process.exit(2);
}
const path = resolve(process.env.INIT_CWD ?? process.cwd(), out);
await mkdir(dirname(path), { recursive: true });
await writeFile(path, `${JSON.stringify(describeApi(), null, 2)}\n`);
