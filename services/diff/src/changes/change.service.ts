import type { Bus } from '@tidemark/bus';
import type { ChangeSummary } from '@tidemark/contracts';
import { ApiError, NotFoundError, ValidationError } from '@tidemark/errors';
import type { Logger } from '@tidemark/telemetry';
import { compareRuns, type ChangeRecord } from '../compare/compare-runs.js';
import { inlineSelectors, type SelectorRunner } from '../bounded/tasks.js';
import { tokenizeMarkdown } from '../compare/markdown-tokens.js';
import type { MarkupComparison } from '../compare/markup-diff.js';
import type { ChangeKind } from '../compare/types.js';
import { maskVolatileElements } from '../compare/volatile-elements.js';
import { diffWords, type WordDiff } from '../compare/word-diff.js';
import type { ChangeRepository, StoredChange } from '../repositories/change.repository.js';
import type { RunPagesRepository, RunToCompare } from '../repositories/run-pages.repository.js';

/** The word diff of one page against the run before (GET /projects/{id}/changes/page). */
export interface PageDiffView extends WordDiff {
  url: string;
  runId: string;
  baseline: string | null;
  kind: Extract<ChangeKind, 'added' | 'removed' | 'modified' | 'same'>;
}

/** The markup comparison of one page against the run before (GET /projects/{id}/changes/markup). */
export interface MarkupDiffView extends MarkupComparison {
  url: string;
  runId: string;
  baseline: string | null;
}

/** run.finished carries at most this many change summaries (the digest reads them). */
const MAX_SUMMARIES = 500;
/** page.changed messages per run; a mass change is told by run.finished, not by 10,000 messages. */
const MAX_PAGE_EVENTS = 1000;

const configValue = <T>(run: RunToCompare, group: string, key: string, fallback: T): T =>
  (run.config?.[group]?.[key] as T | undefined) ?? fallback;

/** The project's `volatile_selectors` (an empty list by default). */
const volatileSelectorsOf = (run: RunToCompare): string[] => configValue(run, 'advanced', 'volatile_selectors', []);

/**
 * Compares a finished project run with the run before it, stores the change record and tells
 * run.finished and page.changed on the events stream. Reads the records for the routes.
 */
export class ChangeService {
  constructor(
    private readonly runs: RunPagesRepository,
    private readonly changes: ChangeRepository,
    private readonly bus: Bus,
    private readonly logger: Logger,
    /** Where the project's selectors run: a bounded pool in the service (inline in unit tests). */
    private readonly selectors: SelectorRunner = inlineSelectors,
  ) {}

  /** work.diff.compare. Idempotent: a run compared before publishes its stored record again. */
  async compare(runId: string): Promise<void> {
    const run = await this.runs.run(runId);
    if (!run) return; // pruned or deleted since
    let stored = await this.changes.byRun(run.id);
    if (!stored) {
      const baseline = await this.runs.baselineOf(run);
      const [current, before] = await Promise.all([
        this.runs.summary(run),
        baseline ? this.runs.summary(baseline) : Promise.resolve(null),
      ]);
      const { record, noise } = await compareRuns({
        baseline: before,
        current,
        noise: baseline ? await this.changes.noiseOf(baseline.id) : null,
        loadPage: async (url, side) => {
          const id = side === 'current' ? run.id : baseline?.id;
          const bodies = id ? await this.runs.bodies(id, url) : null;
          return bodies ? { markdown: bodies.markdown ?? null, html: bodies.cleanHtml ?? bodies.html ?? null } : null;
        },
        options: {
          notifyMinWords: configValue(run, 'output', 'notify_min_words', 1),
          fields: configValue(run, 'content', 'fields', {}),
          volatileSelectors: volatileSelectorsOf(run),
        },
        selectors: this.selectors,
      });
      if (baseline) await this.unreachableIsNotRemoved(record, baseline.id, run.id);
      await this.changes.save(run, record, noise);
      stored = (await this.changes.byRun(run.id))!;
      this.logger.info({ runId, counts: record.counts }, 'run compared');
    }
    await this.publish(run, stored);
  }

  /**
   * A page missing from this run is not "removed" when the run could not have reached it: the
   * page that linked it in the baseline was not read this time (blocked, failed) or is itself
   * unreachable. It is unverified instead, so a blocked section never reads as deleted.
   */
  private async unreachableIsNotRemoved(record: ChangeRecord, baselineId: string, runId: string): Promise<void> {
    const removed = record.entries.filter((e) => e.kind === 'removed');
    if (!removed.length) return;
    const found = await this.runs.referers(
      baselineId,
      removed.map((e) => e.url),
    );
    const referers = [...new Set(found.map((f) => f.first_referer).filter((r): r is string => r !== null))];
    const read = await this.runs.readIn(runId, referers);
    const unreachable = new Set<string>();
    // Shallow first: a page under an unreachable page is unreachable too.
    for (const f of found.sort((a, b) => a.depth - b.depth)) {
      if (f.first_referer && (!read.has(f.first_referer) || unreachable.has(f.first_referer))) unreachable.add(f.url);
    }
    for (const entry of removed) {
      if (!unreachable.has(entry.url)) continue;
      const via = found.find((f) => f.url === entry.url)?.first_referer;
      entry.kind = 'unverified';
      entry.reason = `not reached: the page that links it (${via}) could not be read this run`;
      entry.wordsRemoved = 0;
      entry.notify = false;
      record.counts.removed -= 1;
      record.counts.unverified += 1;
    }
  }

  private async publish(run: RunToCompare, stored: StoredChange): Promise<void> {
    const changed = stored.entries.filter((e) => ['added', 'removed', 'modified'].includes(e.kind));
    // A first run has no baseline: its pages are all new, and none of them is news.
    const told = stored.baselineRunId ? changed.filter((e) => e.data.notify).slice(0, MAX_PAGE_EVENTS) : [];
    for (const e of told) {
      const { data } = e;
      await this.bus.publishEvent(
        run.workspaceId,
        'page.changed',
        {
          projectId: run.projectId,
          runId: run.id,
          url: e.url,
          kind: e.kind as 'added' | 'removed' | 'modified',
          wordsAdded: data.wordsAdded,
          wordsRemoved: data.wordsRemoved,
          section: data.section,
          volatile: data.volatile,
          fields: data.fields,
        },
        { msgId: `${run.id}:page.changed:${e.id}` },
      );
    }
    const summaries: ChangeSummary[] = changed.slice(0, MAX_SUMMARIES).map((e) => {
      const { data } = e;
      return {
        url: e.url,
        kind: e.kind as ChangeSummary['kind'],
        wordsAdded: data.wordsAdded,
        wordsRemoved: data.wordsRemoved,
        section: data.section,
      };
    });
    const pages = Object.entries(stored.counts)
      .filter(([k]) => ['added', 'modified', 'same', 'withheld', 'unverified', 'skipped'].includes(k))
      .reduce((n, [, v]) => n + v, 0);
    await this.bus.publishEvent(
      run.workspaceId,
      'run.finished',
      {
        projectId: run.projectId,
        runId: run.id,
        status: run.status,
        pages,
        counts: { ...stored.counts },
        coverage: stored.coverage,
        stop: run.stop,
        changes: summaries,
      },
      { msgId: `${run.id}:run.finished` },
    );
    await this.publishSiteEvents(run, stored);
  }

  /**
   * page.blocked, field.canonical (a read page's canonical, robots or title changed),
   * page.orphaned / page.linked against the baseline, and site.failing /
   * site.recovered when the site's health flipped since the last compared full run. A run is
   * failing when it ended in error or read too little of the site for a verdict.
   */
  private async publishSiteEvents(run: RunToCompare, stored: StoredChange): Promise<void> {
    const base = { projectId: run.projectId, runId: run.id };
    if (stored.baselineRunId) {
      for (const p of await this.runs.newlyBlocked(run.id, stored.baselineRunId, MAX_PAGE_EVENTS))
        await this.bus.publishEvent(
          run.workspaceId,
          'page.blocked',
          { ...base, url: p.url, errorCode: p.error_code, httpStatus: p.http_status },
          { msgId: `${run.id}:page.blocked:${p.url}` },
        );
      for (const p of await this.runs.headChanges(run.id, stored.baselineRunId, MAX_PAGE_EVENTS)) {
        const changes = (['canonical', 'robots', 'title'] as const)
          .map((field) => ({ field, before: p[`${field}_before`], after: p[`${field}_after`] }))
          .filter((c) => c.before !== c.after);
        await this.bus.publishEvent(
          run.workspaceId,
          'field.canonical',
          { ...base, url: p.url, changes },
          { msgId: `${run.id}:field.canonical:${p.url}` },
        );
      }
      for (const p of await this.runs.linkFlips(run.id, stored.baselineRunId, MAX_PAGE_EVENTS))
        await this.bus.publishEvent(
          run.workspaceId,
          p.flip === 'orphaned' ? 'page.orphaned' : 'page.linked',
          { ...base, url: p.url },
          { msgId: `${run.id}:page.${p.flip}:${p.url}` },
        );
    }
    if (run.trigger === 'recrawl') return; // a few listed pages say nothing of the site's health
    const failing = (status: string, coverage: unknown) =>
      status === 'error' || (coverage as { verdict?: boolean } | null)?.verdict === false;
    const now = failing(run.status, stored.coverage);
    const previous = await this.runs.previousCompared(run);
    const before = previous ? failing(previous.status, await this.changes.coverageOf(previous.id)) : false;
    if (now === before) return;
    const reason = now
      ? run.status === 'error'
        ? 'the run ended in error'
        : String((stored.coverage as { reason?: string }).reason ?? 'the run read too little of the site')
      : 'the run read the site again';
    await this.bus.publishEvent(
      run.workspaceId,
      now ? 'site.failing' : 'site.recovered',
      { ...base, reason },
      {
        msgId: `${run.id}:${now ? 'site.failing' : 'site.recovered'}`,
      },
    );
  }

  /** work.diff.digest: delivery wrote the run's digest (from run.finished); the record keeps it. */
  async storeDigest(runId: string, digest: object): Promise<void> {
    if (!(await this.changes.setDigest(runId, digest)))
      this.logger.warn({ runId }, 'digest for a run without a record');
  }

  /** The change record of a run (the project's latest finished run by default). */
  async get(workspaceId: string, projectId: string, runId: string | null): Promise<StoredChange> {
    if (!(await this.runs.projectVisible(workspaceId, projectId))) throw new NotFoundError('project');
    const id = runId ?? (await this.runs.latestFinished(workspaceId, projectId));
    const run = id ? await this.runs.runOfProject(workspaceId, projectId, id) : null;
    if (!run) throw new NotFoundError(runId ? 'run' : 'finished run');
    const stored = await this.changes.byRun(run.id);
    if (!stored) {
      const state = ['queued', 'running'].includes(run.status) ? 'is still running' : 'has not been compared yet';
      throw new ApiError('not_found', `the run ${state}: no change record yet`);
    }
    return stored;
  }

  async review(workspaceId: string, projectId: string, entryId: string, reviewed: boolean) {
    if (!(await this.changes.review(workspaceId, projectId, entryId, reviewed))) throw new NotFoundError('change');
    return { entryId, reviewed };
  }

  /** The word-level diff of one page against the run before the given one. */
  async pageDiff(workspaceId: string, projectId: string, url: string, runId: string | null): Promise<PageDiffView> {
    const { run, baseline, after, before } = await this.pagePair(workspaceId, projectId, url, runId);
    let old = tokenizeMarkdown(before?.markdown ?? '');
    let now = tokenizeMarkdown(after?.markdown ?? '');
    const volatileSelectors = volatileSelectorsOf(run);
    const html = (b: typeof after) => b?.cleanHtml ?? b?.html ?? null;
    if (volatileSelectors.length && html(before) && html(after)) {
      // As the change record does: the words of the volatile elements are masked on both sides.
      const texts = await Promise.all(
        [html(before)!, html(after)!].map((page) =>
          this.bounded(
            () => this.selectors.run({ kind: 'volatile', html: page, selectors: volatileSelectors }),
            volatileSelectors,
          ),
        ),
      );
      old = maskVolatileElements(old, texts[0]!.texts).doc;
      now = maskVolatileElements(now, texts[1]!.texts).doc;
    }
    const diff = diffWords(old, now);
    return {
      url,
      runId: run.id,
      baseline: baseline?.id ?? null,
      kind: !before ? 'added' : !after ? 'removed' : diff.wordsAdded + diff.wordsRemoved ? 'modified' : 'same',
      ...diff,
    };
  }

  /** The markup comparison of one page against the run before the given one. */
  async markupDiff(workspaceId: string, projectId: string, url: string, runId: string | null): Promise<MarkupDiffView> {
    const { run, baseline, after, before } = await this.pagePair(workspaceId, projectId, url, runId);
    const html = (b: typeof after) => b?.cleanHtml ?? b?.html ?? null;
    if (!html(after) || !html(before))
      throw new ApiError(
        'conflict',
        'the markup comparison needs the page’s html in both runs: store it (formats cleanHtml, or STORE_HTML always)',
      );
    const volatileSelectors = volatileSelectorsOf(run);
    const result = await this.bounded(
      () =>
        this.selectors.run({
          kind: 'markup',
          before: html(before)!,
          after: html(after)!,
          options: { volatileSelectors },
        }),
      volatileSelectors,
    );
    return { url, runId: run.id, baseline: baseline?.id ?? null, ...result };
  }

  /**
   * The project's selectors over a stored page on the selector pool; past its budget, 422 with
   * the reason (a route answers rather than hangs).
   */
  private async bounded<T>(work: () => Promise<T>, selectors: readonly string[]): Promise<T> {
    try {
      return await work();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new ValidationError(
        selectors.length ? `config.advanced.volatile_selectors: ${why}; use simpler selectors` : why,
      );
    }
  }

  private async pagePair(workspaceId: string, projectId: string, url: string, runId: string | null) {
    if (!/^https?:\/\//.test(url)) throw new ValidationError('query.url: an http or https URL');
    if (!(await this.runs.projectVisible(workspaceId, projectId))) throw new NotFoundError('project');
    const id = runId ?? (await this.runs.latestFinished(workspaceId, projectId));
    const run = id ? await this.runs.runOfProject(workspaceId, projectId, id) : null;
    if (!run) throw new NotFoundError(runId ? 'run' : 'finished run');
    const baseline = await this.runs.baselineOf(run);
    const after = await this.runs.bodies(run.id, url);
    const before = baseline ? await this.runs.bodies(baseline.id, url) : null;
    if (!after && !before) throw new NotFoundError('page of this run');
    return { run, baseline, after, before };
  }
}
