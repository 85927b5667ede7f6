import { newId, storable, type Prisma, type PrismaClient } from '@tidemark/db';
import type { Digest } from '@tidemark/contracts';
import type { ChangeRecord, TemplateChange } from '../compare/compare-runs.js';
import type { NoiseState } from '../compare/noise-state.js';
import type { ChangeCounts, ChangeEntry, ChangeKind, Coverage } from '../compare/types.js';

/** An entry as stored: url and kind are columns, the rest of the ChangeEntry is `data`. */
export interface StoredEntry {
  id: string;
  url: string;
  kind: ChangeKind;
  data: Omit<ChangeEntry, 'url' | 'kind'>;
  reviewed: boolean;
}

export interface StoredChange {
  id: string;
  workspaceId: string;
  projectId: string;
  runId: string;
  baselineRunId: string | null;
  counts: ChangeCounts;
  coverage: Coverage;
  templateChanges: TemplateChange[];
  digest: Digest | null;
  createdAt: Date;
  entries: StoredEntry[];
}

/** The only file of diff that writes: change_record and change_entry. */
export class ChangeRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** Saves a run's record once; answers false when the run had one already (a redelivery). */
  async save(
    run: { id: string; workspaceId: string; projectId: string },
    record: ChangeRecord,
    noise: NoiseState,
  ): Promise<boolean> {
    const id = newId('chg');
    // Entries quote pages (titles, fields, snippets): cleaned of what PostgreSQL cannot hold.
    record = storable(record);
    try {
      await this.prisma.$transaction([
        this.prisma.changeRecord.create({
          data: {
            id,
            workspaceId: run.workspaceId,
            projectId: run.projectId,
            runId: run.id,
            baselineRunId: record.baseline,
            counts: record.counts as unknown as Prisma.InputJsonValue,
            coverage: record.coverage as unknown as Prisma.InputJsonValue,
            templateChanges: record.templateChanges as unknown as Prisma.InputJsonValue,
            noise: storable(noise) as unknown as Prisma.InputJsonValue,
          },
        }),
        this.prisma.changeEntry.createMany({
          data: record.entries.map(({ url, kind, ...data }) => ({
            id: newId('che'),
            changeId: id,
            url,
            kind,
            data: data as unknown as Prisma.InputJsonValue,
          })),
        }),
      ]);
      return true;
    } catch (err) {
      if ((err as { code?: string }).code === 'P2002') return false;
      throw err;
    }
  }

  /** Keeps the model-written digest on a run's record; false when the run has none. */
  async setDigest(runId: string, digest: object): Promise<boolean> {
    const { count } = await this.prisma.changeRecord.updateMany({
      where: { runId },
      data: { digest: storable(digest) as Prisma.InputJsonValue },
    });
    return count > 0;
  }

  async coverageOf(runId: string): Promise<unknown> {
    return (
      (await this.prisma.changeRecord.findUnique({ where: { runId }, select: { coverage: true } }))?.coverage ?? null
    );
  }

  async noiseOf(runId: string): Promise<unknown> {
    return (await this.prisma.changeRecord.findUnique({ where: { runId }, select: { noise: true } }))?.noise ?? null;
  }

  async byRun(runId: string): Promise<StoredChange | null> {
    const found = await this.prisma.changeRecord.findUnique({
      where: { runId },
      include: { entries: { orderBy: { url: 'asc' } } },
    });
    if (!found) return null;
    // The JSON columns were written by save() (and setDigest) from these types.
    return {
      ...found,
      counts: found.counts as unknown as ChangeCounts,
      coverage: found.coverage as unknown as Coverage,
      templateChanges: (found.templateChanges ?? []) as unknown as TemplateChange[],
      digest: (found.digest ?? null) as unknown as Digest | null,
      entries: found.entries.map((e) => ({
        id: e.id,
        url: e.url,
        kind: e.kind as ChangeKind,
        data: e.data as unknown as StoredEntry['data'],
        reviewed: e.reviewed,
      })),
    };
  }

  async review(workspaceId: string, projectId: string, entryId: string, reviewed: boolean): Promise<boolean> {
    const n = await this.prisma.changeEntry.updateMany({
      where: { id: entryId, record: { workspaceId, projectId } },
      data: { reviewed, reviewedAt: reviewed ? new Date() : null },
    });
    return n.count > 0;
  }

  async entry(entryId: string) {
    return this.prisma.changeEntry.findUnique({ where: { id: entryId } });
  }
}
