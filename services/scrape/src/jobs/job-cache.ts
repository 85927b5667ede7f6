import type { Job } from '@tidemark/db';

/**
 * The jobs this replica's workers read pages of, as first read: a batch's every page needs its
 * job's request, kind and workspace, none of which change once the job is written, and reading
 * them again was a statement a page and a parse of the whole stored request (every URL of the
 * batch) a page. Nothing here may read what does change (status, counts): the claim checks the
 * job is not cancelled in its own statement, and counting a page reads the job as it stands.
 */
export class JobCache {
  private readonly jobs = new Map<string, Job>();

  constructor(
    private readonly read: (id: string) => Promise<Job | null>,
    /** A batch's stored request holds at most 500 URLs: a full cache is ~10 MB at worst. */
    private readonly capacity = 256,
  ) {}

  async get(id: string): Promise<Job | null> {
    const known = this.jobs.get(id);
    if (known) {
      // Most recently used last: the oldest goes first when the cache is full.
      this.jobs.delete(id);
      this.jobs.set(id, known);
      return known;
    }
    const job = await this.read(id);
    // A cancelled job is not kept: its queued pages are skipped without taking a host's slot.
    if (!job || job.status === 'cancelled') return job;
    this.jobs.set(id, job);
    if (this.jobs.size > this.capacity) this.jobs.delete(this.jobs.keys().next().value!);
    return job;
  }

  /** A job that ended: its pages left are redeliveries at most, which may read it again. */
  forget(id: string): void {
    this.jobs.delete(id);
  }
}
