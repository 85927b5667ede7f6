// A one-off crawl from the app: a URL and a page limit in (POST /crawl), its progress live, its
// pages paged with next, one page in full, and keeping it as a standing project.
import { useState, type FormEvent } from 'react';
import { api, withQuery } from '../../api';
import { Link, navigate, useLocation, useTitle } from '../../router';
import type { JobEnvelope, PageRow } from '../../types';
import { num, shortUrl } from '../../ui/format';
import { Field } from '../../ui/fields';
import { useLoad, usePaged, usePoll } from '../../ui/load';
import { ErrorNote, Loading, useAction } from '../../ui/states';
import { Badge, PagedView, Progress } from '../../ui/widgets';
import { PageResult } from './scrape';

const ended = (status: string | undefined) => status === 'done' || status === 'error' || status === 'cancelled';

const OnePage = ({ id, url }: { id: string; url: string }) => {
  const page = useLoad<PageRow>(withQuery(`/crawl/${id}/page`, { url }));
  if (page.error) return <ErrorNote error={page.error} />;
  if (!page.data) return <Loading />;
  return <PageResult row={page.data} />;
};

const Keep = ({ id }: { id: string }) => {
  const [name, setName] = useState('');
  const action = useAction();
  const keep = async (e: FormEvent) => {
    e.preventDefault();
    const kept = await action.run(() =>
      api.post<{ projectId: string }>(`/crawl/${id}/keep`, name.trim() ? { name: name.trim() } : {}),
    );
    if (kept) navigate(`/projects/${kept.projectId}`);
  };
  return (
    <form onSubmit={keep} className="inline">
      <label>
        Project name <input value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <button type="submit" disabled={action.busy}>
        Keep as a project
      </button>
      <ErrorNote error={action.error} />
    </form>
  );
};

const CrawlJob = ({ id }: { id: string }) => {
  const { query } = useLocation();
  const state = useLoad<JobEnvelope>(`/crawl/${id}?formats=&limit=1`);
  const running = !!state.data && !ended(state.data.status);
  usePoll(running, 1000, state.reload);
  const pages = usePaged<PageRow>(state.data && !running ? `/crawl/${id}?formats=&limit=25` : null);
  const page = query.get('page');
  if (!state.data) return state.error ? <ErrorNote error={state.error} /> : <Loading />;
  const s = state.data;
  return (
    <section aria-labelledby="crawl-job">
      <h2 id="crawl-job">
        Crawl <code>{s.id}</code> <Badge kind={s.status} />
      </h2>
      <Progress done={s.progress.done} total={s.progress.total} label="Pages crawled" />
      <p>
        {s.progress.queued} queued · {num(s.creditsUsed)} credits{s.stop ? ` · stopped: ${s.stop}` : ''}
      </p>
      {running && (
        <button type="button" onClick={() => void api.delete(`/crawl/${id}`).then(state.reload)}>
          Stop the crawl
        </button>
      )}
      {!running && <Keep id={id} />}
      {page ? (
        <>
          <p>
            <Link to={`/crawl?id=${id}`}>Back to the pages</Link>
          </p>
          <OnePage id={id} url={page} />
        </>
      ) : (
        !running && (
          <>
            <h3>Pages</h3>
            <PagedView list={pages} empty="The crawl read no page.">
              {(rows) => (
                <div className="table-wrap">
                  <table className="stack">
                    <thead>
                      <tr>
                        <th scope="col">Page</th>
                        <th scope="col">Verdict</th>
                        <th scope="col">Status</th>
                        <th scope="col">Words</th>
                        <th scope="col">Credits</th>
                      </tr>
                    </thead>
                    <tbody>
                      {rows.map((r) => (
                        <tr key={r.url}>
                          <td data-label="Page">
                            <Link to={withQuery('/crawl', { id, page: r.url })}>{shortUrl(r.url)}</Link>
                          </td>
                          <td data-label="Verdict">{r.verdict ? <Badge kind={r.verdict} /> : '—'}</td>
                          <td data-label="Status">{r.httpStatus ?? '—'}</td>
                          <td data-label="Words">{num(r.words)}</td>
                          <td data-label="Credits">{num(r.credits)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </PagedView>
          </>
        )
      )}
    </section>
  );
};

export const CrawlScreen = () => {
  useTitle('Crawl');
  const { query } = useLocation();
  const id = query.get('id');
  const [url, setUrl] = useState('');
  const [limit, setLimit] = useState('50');
  const action = useAction();
  const start = async (e: FormEvent) => {
    e.preventDefault();
    const job = await action.run(() =>
      api.post<JobEnvelope>('/crawl', { url: url.trim(), limit: Number(limit) || 50 }),
    );
    if (job) navigate(`/crawl?id=${job.id}`);
  };
  return (
    <>
      <h1>Crawl a site</h1>
      <p className="muted">
        Follows links and sitemaps from a URL within its host and reads each page, once. Keep it as a project to crawl
        it again on a schedule and see what changed.
      </p>
      <form onSubmit={start} className="grid-2">
        <Field
          label="Start address"
          type="url"
          required
          placeholder="https://example.com/"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
        />
        <Field
          label="Most pages"
          type="number"
          min={1}
          max={10000}
          value={limit}
          onChange={(e) => setLimit(e.target.value)}
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={action.busy}>
            Start the crawl
          </button>
        </div>
      </form>
      <ErrorNote error={action.error} />
      {id && <CrawlJob key={id} id={id} />}
    </>
  );
};
