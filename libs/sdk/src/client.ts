import { HttpClient, type ClientOptions } from './http.js';
import { CrawlJobs, MapJobs, Playground, ScrapeJobs } from './resources/jobs.js';
import { Changes, Exports, Pages } from './resources/pages.js';
import { Projects, Runs } from './resources/projects.js';
import { Connections, Webhooks, Workspace } from './resources/workspace.js';

/**
 * The Tidemark API, one method per route (the /auth routes of the web application's sessions
 * excepted: a key cannot use them).
 *
 * ```ts
 * const tm = new Tidemark({ apiKey: process.env.TIDEMARK_API_KEY });
 * const crawl = await tm.crawl.start({ url: 'https://example.com/', limit: 50 });
 * for await (const page of tm.crawl.pages((await tm.crawl.wait(crawl.id)).id)) console.log(page.url);
 * ```
 */
export class Tidemark {
  readonly http: HttpClient;
  readonly scrape: ScrapeJobs;
  readonly crawl: CrawlJobs;
  readonly map: MapJobs;
  readonly playground: Playground;
  readonly projects: Projects;
  readonly runs: Runs;
  readonly pages: Pages;
  readonly changes: Changes;
  readonly exports: Exports;
  readonly workspace: Workspace;
  readonly webhooks: Webhooks;
  readonly connections: Connections;

  constructor(opts: ClientOptions = {}) {
    this.http = new HttpClient(opts);
    this.scrape = new ScrapeJobs(this.http);
    this.crawl = new CrawlJobs(this.http);
    this.map = new MapJobs(this.http);
    this.playground = new Playground(this.http);
    this.projects = new Projects(this.http);
    this.runs = new Runs(this.http);
    this.pages = new Pages(this.http);
    this.changes = new Changes(this.http);
    this.exports = new Exports(this.http);
    this.workspace = new Workspace(this.http);
    this.webhooks = new Webhooks(this.http);
    this.connections = new Connections(this.http);
  }
}
