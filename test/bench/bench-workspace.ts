import type { TestFleet } from '../support/fleet.js';

/** A workspace no rate limit or credit balance can slow down: what a bench measures is the work. */
export const benchWorkspace = async (
  t: Pick<TestFleet, 'createWorkspace' | 'db'>,
): Promise<{ workspaceId: string; apiKey: string }> => {
  const ws = await t.createWorkspace('bench');
  await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'unmetered' } });
  await t.db.prisma.ledgerEntry.create({
    data: {
      id: `led_bench_${ws.workspaceId}`,
      workspaceId: ws.workspaceId,
      kind: 'grant',
      reason: 'bench',
      credits: 1_000_000,
      reference: 'bench',
    },
  });
  return ws;
};
