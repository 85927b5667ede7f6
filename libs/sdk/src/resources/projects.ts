import type { Body, ChangeRecord, Project, Query, Run } from '../api-types.js';
import { TidemarkApiError } from '../errors.js';
import type { HttpClient, RequestOptions } from '../http.js';
import { paginate } from '../paging.js';
import { hasEnded, pollUntil, type WaitOptions } from '../waiting.js';

/** Standing projects: a seed, a config, a schedule and a retention. */
export class Projects {
  constructor(private readonly http: HttpClient) {}

  /** GET /projects: one page of the projects this key may see, newest first. */
  list(query: Query<'/projects', 'get'> = {}) {
    return this.http.call('get', '/projects', { query });
  }
  /** Every project, following `next` (pages of 100). */
  all(query: Query<'/projects', 'get'> = {}): AsyncGenerator<Project> {
    const q = { limit: 100, ...query };
    return paginate(
      this.http,
      () => this.list(q),
      (cursor) => this.list({ ...q, cursor }),
    );
  }
  /** POST /projects (201). */
  create(body: Body<'/projects', 'post'>, opts: RequestOptions = {}): Promise<Project> {
    return this.http.call('post', '/projects', { body, ...opts });
  }
  /** POST /projects/batch: one project per seed from a template. */
  createMany(body: Body<'/projects/batch', 'post'>, opts: RequestOptions = {}) {
    return this.http.call('post', '/projects/batch', { body, ...opts });
  }
  /** GET /projects/{id}. */
  get(id: string): Promise<Project> {
    return this.http.call('get', '/projects/{id}', { params: { id } });
  }
  /** PATCH /projects/{id}: a partial config merges; an unknown key is refused by name. */
  update(id: string, body: Body<'/projects/{id}', 'patch'>): Promise<Project> {
    return this.http.call('patch', '/projects/{id}', { params: { id }, body });
  }
  /** DELETE /projects/{id} (admin): the project, its runs and pages. */
  delete(id: string): Promise<void> {
    return this.http.call('delete', '/projects/{id}', { params: { id } }) as Promise<void>;
  }
  /** POST /projects/{id}/config/apply: copies config groups onto other projects. */
  applyConfig(id: string, body: Body<'/projects/{id}/config/apply', 'post'>) {
    return this.http.call('post', '/projects/{id}/config/apply', { params: { id }, body });
  }
  /** POST /projects/run: starts a run of several projects. */
  runMany(body: Body<'/projects/run', 'post'>) {
    return this.http.call('post', '/projects/run', { body });
  }
  /** POST /projects/{id}/dry-run: what scope patterns would do to the URLs already known. */
  dryRun(id: string, body: Body<'/projects/{id}/dry-run', 'post'> = {}) {
    return this.http.call('post', '/projects/{id}/dry-run', { params: { id }, body });
  }
  /** GET /projects/{id}/sources. */
  sources(id: string) {
    return this.http.call('get', '/projects/{id}/sources', { params: { id } });
  }
  /** POST /projects/{id}/sources/preview: patterns, feeds and URL lists checked now; nothing queued. */
  previewSources(id: string, body: Body<'/projects/{id}/sources/preview', 'post'> = {}) {
    return this.http.call('post', '/projects/{id}/sources/preview', { params: { id }, body });
  }
  /** POST /projects/{id}/selectors/match: match counts on the last run's stored html. */
  matchSelectors(id: string, body: Body<'/projects/{id}/selectors/match', 'post'>) {
    return this.http.call('post', '/projects/{id}/selectors/match', { params: { id }, body });
  }
  /** POST /projects/{id}/content/preview: what the content filters make of one stored page. */
  previewContent(id: string, body: Body<'/projects/{id}/content/preview', 'post'> = {}) {
    return this.http.call('post', '/projects/{id}/content/preview', { params: { id }, body });
  }
  /** GET /projects/{id}/discovery: the stored sitemap tree (null before the first). */
  discovery(id: string) {
    return this.http.call('get', '/projects/{id}/discovery', { params: { id } });
  }
  /** POST /projects/{id}/discovery: a new snapshot (202; billed as a map). */
  discover(id: string) {
    return this.http.call('post', '/projects/{id}/discovery', { params: { id } });
  }
  /** GET /projects/{id}/discovery/entries: the URLs one sitemap file or prefix declares. */
  discoveryEntries(id: string, query: Query<'/projects/{id}/discovery/entries', 'get'> = {}) {
    return this.http.call('get', '/projects/{id}/discovery/entries', { params: { id }, query });
  }
}

/** Runs of a project. */
export class Runs {
  constructor(private readonly http: HttpClient) {}

  /** GET /projects/{id}/runs: run history, newest first. */
  list(projectId: string, query: Query<'/projects/{id}/runs', 'get'> = {}) {
    return this.http.call('get', '/projects/{id}/runs', { params: { id: projectId }, query });
  }
  /** Every run, following `next`. */
  all(projectId: string, query: Query<'/projects/{id}/runs', 'get'> = {}): AsyncGenerator<Run> {
    return paginate(
      this.http,
      () => this.list(projectId, query),
      (cursor) => this.list(projectId, { ...query, cursor }),
    );
  }
  /** POST /projects/{id}/runs (202; 409 conflict while one is queued or running). */
  start(projectId: string, body: Body<'/projects/{id}/runs', 'post'> = {}): Promise<Run> {
    return this.http.call('post', '/projects/{id}/runs', { params: { id: projectId }, body });
  }
  /** GET /projects/{id}/runs/{run}: counts, credits, stop reason, engines, log. */
  get(projectId: string, runId: string): Promise<Run> {
    return this.http.call('get', '/projects/{id}/runs/{run}', { params: { id: projectId, run: runId } });
  }
  /** POST /projects/{id}/runs/{run}/cancel. */
  cancel(projectId: string, runId: string): Promise<Run> {
    return this.http.call('post', '/projects/{id}/runs/{run}/cancel', { params: { id: projectId, run: runId } });
  }
  /** GET /projects/{id}/runs/{run}/links: one set of the link graph with its coverage. */
  links(projectId: string, runId: string, query: Query<'/projects/{id}/runs/{run}/links', 'get'> = {}) {
    return this.http.call('get', '/projects/{id}/runs/{run}/links', { params: { id: projectId, run: runId }, query });
  }
  /** Polls the run until it has ended (done, error or cancelled). */
  wait(projectId: string, runId: string, opts: WaitOptions<Run> = {}): Promise<Run> {
    return pollUntil(`run ${runId}`, () => this.get(projectId, runId), hasEnded, opts);
  }
  /**
   * Waits for the run to end and for its change record (the diff service compares a run once it
   * has ended): answers both.
   */
  async waitForChanges(
    projectId: string,
    runId: string,
    opts: WaitOptions<Run> = {},
  ): Promise<{ run: Run; changes: ChangeRecord }> {
    const run = await this.wait(projectId, runId, opts);
    const changes = await pollUntil<ChangeRecord | null>(
      `the change record of run ${runId}`,
      async () => {
        try {
          return await this.http.call('get', '/projects/{id}/changes', {
            params: { id: projectId },
            query: { run_id: runId },
          });
        } catch (err) {
          if (err instanceof TidemarkApiError && err.code === 'not_found') return null;
          throw err;
        }
      },
      (record) => record !== null,
      {
        intervalMs: Math.min(opts.intervalMs ?? 500, 500),
        timeoutMs: 120_000,
        ...(opts.signal ? { signal: opts.signal } : {}),
      },
    );
    return { run, changes: changes! };
  }
}
