import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * The first workspace's admin key, kept in .tidemark/first-key (mode 0600) so `pnpm start` can
 * print the same working key every time instead of minting a new one per start.
 */
export const readFirstKey = async (path: string): Promise<{ workspaceId: string; apiKey: string } | null> => {
  try {
    const saved = JSON.parse(await readFile(path, 'utf8')) as { workspaceId?: unknown; apiKey?: unknown };
    return typeof saved.workspaceId === 'string' && typeof saved.apiKey === 'string'
      ? { workspaceId: saved.workspaceId, apiKey: saved.apiKey }
      : null;
  } catch {
    return null;
  }
};

export const saveFirstKey = async (path: string, value: { workspaceId: string; apiKey: string }): Promise<void> => {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(value), { mode: 0o600 });
};
