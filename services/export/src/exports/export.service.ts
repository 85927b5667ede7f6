import { NotFoundError } from '@tidemark/errors';
import type { StoredBodies } from '@tidemark/page-store';
import type { After, ExportProject, ExportRun, RunExportRepository } from '../repositories/run-export.repository.js';
import {
  CATALOG,
  CHANGE_COLUMNS,
  type DatasetInfo,
  MARKDOWN_COLUMNS,
  PAGE_COLUMNS,
  resolveFormat,
  SITEMAP_COLUMNS,
  type Dataset,
  type Format,
} from './catalog.js';
import { Chunker } from './chunker.js';
import { csvWriter, jsonlWriter, type RowWriter } from './formats.js';
import { LlmsFullWriter, LlmsIndexWriter, type SiteHeading } from './llms.js';
import {
  changeRow,
  descriptionOf,
  fieldColumn,
  flatFieldsRow,
  pageRow,
  sitemapRow,
  titleOf,
  type Head,
} from './rows.js';
import { UrlFilter } from './url-match.js';

export interface ExportRequest {
  workspaceId: string;
  projectId: string;
  /** null = the project's latest finished run. */
  runId: string | null;
  dataset: string;
  /** '' = the dataset's default. */
  format: string;
  /** null = every row; a list = only rows of these URLs. */
  urls: string[] | null;
}

export interface ExportHead {
  contentType: string;
  filename: string;
  runId: string;
}

/** One message of the stream: the head on the first only, then bytes of the file in order. */
export interface ExportMessage {
  head: ExportHead | undefined;
  data: Buffer;
}

/** Pages whose bodies are unzipped at once (a page's markdown can be megabytes). */
const BODIES_AT_ONCE = 20;

const CONTENT_TYPES: Record<Format, string> = {
  jsonl: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
  txt: 'text/plain; charset=utf-8',
};

/** A file name safe in a header: the project's name in ASCII letters, digits and dashes. */
const slug = (name: string): string =>
  name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase()
    .slice(0, 60) || 'project';

const filenameOf = (project: ExportProject, run: ExportRun, dataset: Dataset, format: Format): string =>
  dataset === 'llms' || dataset === 'llms-full'
    ? `${dataset}.txt`
    : `${slug(project.name)}-${dataset}-${run.id}.${format}`;

/** The seed as the run's rows may spell it: either scheme, with or without the trailing slash. */
const seedSpellings = (seed: string): string[] => {
  const bare = seed.replace(/\/+$/, '');
  return [bare, `${bare}/`].flatMap((s) => [
    s,
    s.replace(/^https?:/i, (m) => (/^https/i.test(m) ? 'http:' : 'https:')),
  ]);
};

const hostOf = (url: string): string => {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
};

interface Plan {
  project: ExportProject;
  run: ExportRun;
  dataset: Dataset;
  format: Format;
  filter: UrlFilter | null;
  /** The change record, for the changes dataset. */
  changeId: string | null;
}

/**
 * Datasets of a run as files: rows read in keyset batches, written as JSON Lines, CSV or text
 * and cut into messages as they come, so an export holds one batch whatever the run's size.
 * The stream is pulled: nothing is read ahead of what the reader has taken.
 */
export class ExportService {
  constructor(
    private readonly repo: RunExportRepository,
    private readonly opts: { batchRows: number; chunkBytes: number },
  ) {}

  catalog(): DatasetInfo[] {
    return CATALOG;
  }

  /** The export's messages. Everything that can refuse it does so before the first message. */
  async *messages(req: ExportRequest): AsyncGenerator<ExportMessage> {
    const plan = await this.plan(req);
    const head: ExportHead = {
      contentType: CONTENT_TYPES[plan.format],
      filename: filenameOf(plan.project, plan.run, plan.dataset, plan.format),
      runId: plan.run.id,
    };
    const chunker = new Chunker(this.opts.chunkBytes);
    let first = true;
    const message = (data: Buffer): ExportMessage => {
      const m = { head: first ? head : undefined, data };
      first = false;
      return m;
    };
    for await (const text of this.text(plan)) for (const data of chunker.push(text)) yield message(data);
    const rest = chunker.flush();
    if (rest || first) yield message(rest ?? Buffer.alloc(0));
  }

  private async plan(req: ExportRequest): Promise<Plan> {
    const { dataset, format } = resolveFormat(req.dataset, req.format);
    const project = await this.repo.project(req.workspaceId, req.projectId);
    if (!project) throw new NotFoundError('project');
    const run = req.runId
      ? await this.repo.run(req.workspaceId, project.id, req.runId)
      : await this.repo.latestFinishedRun(req.workspaceId, project.id);
    if (!run) throw new NotFoundError(req.runId ? 'run' : 'finished run');
    let changeId: string | null = null;
    if (dataset === 'changes') {
      changeId = await this.repo.changeRecordOf(run.id);
      if (!changeId) {
        const state = ['queued', 'running'].includes(run.status) ? 'is still running' : 'has not been compared yet';
        throw new NotFoundError(`change record (the run ${state})`);
      }
    }
    return { project, run, dataset, format, filter: req.urls ? new UrlFilter(req.urls) : null, changeId };
  }

  /** Batches of rows after each other by their sort key, until a short batch. */
  private async *keyset<T>(load: (after: After) => Promise<T[]>, keyOf: (row: T) => After): AsyncGenerator<T[]> {
    let after: After = [];
    for (;;) {
      const rows = await load(after);
      if (rows.length) yield rows;
      if (rows.length < this.opts.batchRows) return;
      after = keyOf(rows.at(-1)!);
    }
  }

  /**
   * Each page with its unzipped bodies, loaded BODIES_AT_ONCE at a time: a batch of rows is
   * small, a batch of large pages' bodies need not be.
   */
  private async *withBodies<T extends { id: string }>(pages: T[]): AsyncGenerator<[T, StoredBodies | undefined]> {
    for (let i = 0; i < pages.length; i += BODIES_AT_ONCE) {
      const slice = pages.slice(i, i + BODIES_AT_ONCE);
      const bodies = await this.repo.bodies(slice.map((p) => p.id));
      for (const p of slice) yield [p, bodies.get(p.id)];
    }
  }

  private kept<T extends { url: string }>(plan: Plan, rows: T[]): T[] {
    return plan.filter ? rows.filter((r) => plan.filter!.has(r.url)) : rows;
  }

  private text(plan: Plan): AsyncGenerator<string> {
    switch (plan.dataset) {
      case 'pages':
        return this.pages(plan);
      case 'markdown':
        return this.markdown(plan);
      case 'changes':
        return this.changes(plan);
      case 'fields':
        return this.fields(plan);
      case 'sitemap':
        return this.sitemap(plan);
      case 'llms':
        return this.llms(plan);
      case 'llms-full':
        return this.llmsFull(plan);
    }
  }

  private writer(plan: Plan, columns: readonly string[]): RowWriter {
    return plan.format === 'csv' ? csvWriter([...columns]) : jsonlWriter([...columns]);
  }

  private pageBatches(plan: Plan, only: Parameters<RunExportRepository['pages']>[3]) {
    return this.keyset(
      (after) => this.repo.pages(plan.run.id, after, this.opts.batchRows, only),
      (p) => [p.url, p.id],
    );
  }

  private async *pages(plan: Plan): AsyncGenerator<string> {
    const writer = this.writer(plan, PAGE_COLUMNS);
    yield writer.header();
    const hasSitemap = await this.repo.hasSitemap(plan.run.id);
    for await (const batch of this.pageBatches(plan, 'all'))
      for (const p of this.kept(plan, batch)) yield writer.row(pageRow(p, hasSitemap));
  }

  private async *markdown(plan: Plan): AsyncGenerator<string> {
    const writer = this.writer(plan, MARKDOWN_COLUMNS);
    yield writer.header();
    for await (const batch of this.pageBatches(plan, 'with-bodies'))
      for await (const [p, bodies] of this.withBodies(this.kept(plan, batch))) {
        const markdown = bodies?.markdown;
        if (typeof markdown === 'string') yield writer.row({ url: p.url, title: titleOf(p.data), markdown });
      }
  }

  private async *changes(plan: Plan): AsyncGenerator<string> {
    const writer = this.writer(plan, CHANGE_COLUMNS);
    yield writer.header();
    const batches = this.keyset(
      (after) => this.repo.entries(plan.changeId!, after, this.opts.batchRows),
      (e) => [e.url, e.id],
    );
    for await (const batch of batches) for (const e of this.kept(plan, batch)) yield writer.row(changeRow(e));
  }

  private async *fields(plan: Plan): AsyncGenerator<string> {
    if (plan.format === 'csv') {
      // One column per field name met anywhere in the run, known before the first row.
      const names = await this.repo.fieldNames(plan.run.id);
      const writer = csvWriter(['url', ...names.map(fieldColumn)]);
      yield writer.header();
      for await (const batch of this.pageBatches(plan, 'with-fields'))
        for (const p of this.kept(plan, batch)) yield writer.row(flatFieldsRow(p, names));
      return;
    }
    const writer = jsonlWriter(['url', 'fields']);
    for await (const batch of this.pageBatches(plan, 'with-fields'))
      for (const p of this.kept(plan, batch)) yield writer.row({ url: p.url, fields: p.data.fields });
  }

  private async *sitemap(plan: Plan): AsyncGenerator<string> {
    const writer = this.writer(plan, SITEMAP_COLUMNS);
    yield writer.header();
    for await (const batch of this.pageBatches(plan, 'usable'))
      for (const p of this.kept(plan, batch)) yield writer.row(sitemapRow(p));
  }

  /** Usable pages in llms order: the site's root pages, then by host and first path segment. */
  private groupedBatches(plan: Plan) {
    return this.keyset(
      (after) => this.repo.groupedPages(plan.run.id, hostOf(plan.project.seed), after, this.opts.batchRows),
      (p) => [p.host, p.segment, p.url, p.id],
    );
  }

  /** The site's title and description: the home page's site name or title, and its description. */
  private async site(plan: Plan): Promise<SiteHeading> {
    const head = (await this.repo.homeHead(plan.run.id, seedSpellings(plan.project.seed))) as Head | null;
    const siteName = head?.openGraph?.['og:site_name']?.trim();
    return {
      title: siteName || head?.title?.trim() || plan.project.name,
      description: descriptionOf(head),
    };
  }

  private async *llms(plan: Plan): AsyncGenerator<string> {
    const writer = new LlmsIndexWriter(await this.site(plan));
    yield writer.header();
    for await (const batch of this.groupedBatches(plan))
      for (const p of this.kept(plan, batch)) {
        const head = p.head as Head | null;
        yield writer.page({
          url: p.url,
          title: head?.title ?? null,
          description: descriptionOf(head),
          host: p.host,
          segment: p.segment,
        });
      }
  }

  private async *llmsFull(plan: Plan): AsyncGenerator<string> {
    const writer = new LlmsFullWriter();
    for await (const batch of this.groupedBatches(plan))
      for await (const [p, bodies] of this.withBodies(this.kept(plan, batch))) {
        const markdown = bodies?.markdown;
        // A usable page stored without markdown has nothing to put under its title.
        if (typeof markdown === 'string' && markdown.trim())
          yield writer.page({ url: p.url, title: (p.head as Head | null)?.title ?? null }, markdown);
      }
  }
}
