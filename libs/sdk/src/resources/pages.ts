import type { Body, PageRow, Query, Run, StoredPage } from '../api-types.js';
import type { HttpClient } from '../http.js';
import { paginate } from '../paging.js';

/** Stored pages of a project's runs. */
export class Pages {
  constructor(private readonly http: HttpClient) {}

  /** GET /projects/{id}/pages: page rows of a run (latest finished by default), filterable. */
  list(projectId: string, query: Query<'/projects/{id}/pages', 'get'> = {}) {
    return this.http.call('get', '/projects/{id}/pages', { params: { id: projectId }, query });
  }
  /** Every row, following `next`. */
  all(projectId: string, query: Query<'/projects/{id}/pages', 'get'> = {}): AsyncGenerator<PageRow> {
    return paginate(
      this.http,
      () => this.list(projectId, query),
      (cursor) => this.list(projectId, { ...query, cursor }),
    );
  }
  /** GET /projects/{id}/pages/content: one stored page in full. */
  content(projectId: string, query: Query<'/projects/{id}/pages/content', 'get'>): Promise<StoredPage> {
    return this.http.call('get', '/projects/{id}/pages/content', { params: { id: projectId }, query });
  }
  /** GET /projects/{id}/pages/screenshot: the JPEG (the Response, body unread). */
  screenshot(projectId: string, query: Query<'/projects/{id}/pages/screenshot', 'get'>): Promise<Response> {
    return this.http.stream('get', '/projects/{id}/pages/screenshot', { params: { id: projectId }, query });
  }
  /** GET /projects/{id}/pages/removed: what the content filters took out of a stored page. */
  removed(projectId: string, query: Query<'/projects/{id}/pages/removed', 'get'>) {
    return this.http.call('get', '/projects/{id}/pages/removed', { params: { id: projectId }, query });
  }
  /** POST /projects/{id}/pages/search: pages that say words (content) or contain a selector. */
  search(projectId: string, body: Body<'/projects/{id}/pages/search', 'post'>) {
    return this.http.call('post', '/projects/{id}/pages/search', { params: { id: projectId }, body });
  }
  /** POST /projects/{id}/pages/recrawl: exactly these pages, now, as a run of their own (202). */
  recrawl(projectId: string, body: Body<'/projects/{id}/pages/recrawl', 'post'>): Promise<Run> {
    return this.http.call('post', '/projects/{id}/pages/recrawl', { params: { id: projectId }, body });
  }
}

/** Change records of a project's runs. */
export class Changes {
  constructor(private readonly http: HttpClient) {}

  /** GET /projects/{id}/changes: the change record of a run (latest by default). */
  get(projectId: string, query: Query<'/projects/{id}/changes', 'get'> = {}) {
    return this.http.call('get', '/projects/{id}/changes', { params: { id: projectId }, query });
  }
  /** POST /projects/{id}/changes/{change}/review: marks an entry reviewed (or not). */
  review(projectId: string, changeId: string, reviewed = true) {
    return this.http.call('post', '/projects/{id}/changes/{change}/review', {
      params: { id: projectId, change: changeId },
      body: { reviewed },
    });
  }
  /** GET /projects/{id}/changes/page: the word-level diff of one page against the run before. */
  page(projectId: string, query: Query<'/projects/{id}/changes/page', 'get'>) {
    return this.http.call('get', '/projects/{id}/changes/page', { params: { id: projectId }, query });
  }
  /** GET /projects/{id}/changes/markup: the markup comparison of one page. */
  markup(projectId: string, query: Query<'/projects/{id}/changes/markup', 'get'>) {
    return this.http.call('get', '/projects/{id}/changes/markup', { params: { id: projectId }, query });
  }
}

/** Datasets of a run, streamed. */
export class Exports {
  constructor(private readonly http: HttpClient) {}

  /** GET /exports: what can be exported. */
  catalog() {
    return this.http.call('get', '/exports', {});
  }
  /**
   * GET /projects/{id}/export: the dataset as a streamed Response (read `body`; Content-Length
   * is absent, X-Run-Id names the run). The request timeout stops once the headers are in.
   */
  download(projectId: string, query: Query<'/projects/{id}/export', 'get'>): Promise<Response> {
    return this.http.stream('get', '/projects/{id}/export', { params: { id: projectId }, query });
  }
  /** POST /projects/{id}/export: the same, restricted to the listed URLs. */
  downloadUrls(projectId: string, body: Body<'/projects/{id}/export', 'post'>): Promise<Response> {
    return this.http.stream('post', '/projects/{id}/export', { params: { id: projectId }, body });
  }
}
