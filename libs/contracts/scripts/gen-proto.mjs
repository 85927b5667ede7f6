// Generates the ts-proto clients and servers from proto/ with the buf binary that ships inside
// its npm package (no protoc download). Output is git-ignored: run `pnpm gen` after a change.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
rmSync(resolve(root, 'libs/contracts/src/generated'), { recursive: true, force: true });
execFileSync(resolve(root, 'node_modules/.bin/buf'), ['generate', '--template', 'buf.gen.yaml'], {
  cwd: resolve(root, 'proto'),
  stdio: 'inherit',
});
