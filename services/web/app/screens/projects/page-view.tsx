// One stored page in full: its markdown rendered, screenshot, head, fields, verdict and versions,
// and what the content filters took out of it.
import { useState } from 'react';
import { Link, useLocation } from '../../router';
import type { PageRow } from '../../types';
import { num, shortUrl, when } from '../../ui/format';
import { useLoad } from '../../ui/load';
import { Markdown } from '../../ui/markdown';
import { Empty, ErrorNote, Loading } from '../../ui/states';
import { Badge } from '../../ui/widgets';
import { ProjectFrame } from './project-frame';

interface PageContent extends PageRow {
  runId: string;
  versions: {
    runId: string;
    runStatus: string;
    crawledAt: string | null;
    verdict: string | null;
    words: number | null;
  }[];
}
interface Removed {
  counts: Record<string, number>;
  removed: { why: string; element: string; words: number; text: string }[];
}

const RemovedContent = ({ id, url, run }: { id: string; url: string; run: string }) => {
  const removed = useLoad<Removed>(`/projects/${id}/pages/removed?url=${encodeURIComponent(url)}&run_id=${run}`);
  if (removed.loading) return <Loading />;
  if (removed.error) return <ErrorNote error={removed.error} />;
  if (!removed.data?.removed.length) return <Empty>The filters took nothing out of this page.</Empty>;
  return (
    <div className="table-wrap">
      <table>
        <caption>
          What the content filters took out:{' '}
          {Object.entries(removed.data.counts)
            .map(([why, n]) => `${n} ${why}`)
            .join(', ')}
        </caption>
        <thead>
          <tr>
            <th scope="col">Why</th>
            <th scope="col">Element</th>
            <th scope="col">Words</th>
            <th scope="col">Text</th>
          </tr>
        </thead>
        <tbody>
          {removed.data.removed.map((r, i) => (
            <tr key={i}>
              <td>{r.why}</td>
              <td>
                <code>{r.element}</code>
              </td>
              <td>{r.words}</td>
              <td>{r.text || '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
};

export const PageView = ({ id }: { id: string }) => {
  const { query } = useLocation();
  const url = query.get('url') ?? '';
  const run = query.get('run');
  const page = useLoad<PageContent>(
    `/projects/${id}/pages/content?url=${encodeURIComponent(url)}${run ? `&run_id=${run}` : ''}`,
  );
  const [showRemoved, setShowRemoved] = useState(false);
  const [shot, setShot] = useState(true);
  return (
    <ProjectFrame id={id} title={shortUrl(url)}>
      {(project) => {
        const screenshots = ((project.config.output?.formats as string[] | undefined) ?? []).includes('screenshot');
        if (page.error) return <ErrorNote error={page.error} />;
        if (!page.data) return <Loading />;
        const p = page.data;
        return (
          <>
            <h2>{p.head?.title ?? shortUrl(p.url)}</h2>
            <p className="muted">
              <a href={p.url} rel="noopener noreferrer nofollow" target="_blank">
                {p.url}
              </a>
            </p>
            <dl className="counts">
              <div className="count">
                <dt>verdict</dt>
                <dd>{p.verdict ? <Badge kind={p.verdict} /> : '—'}</dd>
              </div>
              <div className="count">
                <dt>status</dt>
                <dd>{p.httpStatus ?? '—'}</dd>
              </div>
              <div className="count">
                <dt>words</dt>
                <dd>{num(p.words)}</dd>
              </div>
              <div className="count">
                <dt>credits</dt>
                <dd>{num(p.credits)}</dd>
              </div>
              <div className="count">
                <dt>engine</dt>
                <dd>{p.method ?? '—'}</dd>
              </div>
            </dl>
            <p>
              {p.reason} · crawled {when(p.crawledAt)} · signals: {(p.signals ?? []).join(', ') || 'none'}
            </p>
            {screenshots && shot && (
              <img
                className="screenshot"
                alt={`Screenshot of ${p.url}`}
                src={`/v1/projects/${id}/pages/screenshot?url=${encodeURIComponent(p.url)}&run_id=${p.runId}`}
                onError={() => setShot(false)}
              />
            )}
            <h3>Content</h3>
            {p.markdown ? <Markdown text={p.markdown} /> : <Empty>No markdown was stored for this page.</Empty>}
            {p.fields && Object.keys(p.fields).length > 0 && (
              <>
                <h3>Fields</h3>
                <dl>
                  {Object.entries(p.fields).map(([k, v]) => (
                    <div key={k}>
                      <dt>{k}</dt>
                      <dd>{v === null ? <span className="muted">no match</span> : JSON.stringify(v)}</dd>
                    </div>
                  ))}
                </dl>
              </>
            )}
            <h3>Head</h3>
            <dl>
              <dt>Title</dt>
              <dd>{p.head?.title ?? '—'}</dd>
              <dt>Description</dt>
              <dd>{p.head?.description ?? '—'}</dd>
              <dt>Canonical</dt>
              <dd>{p.head?.canonical ?? '—'}</dd>
            </dl>
            <h3>Removed content</h3>
            {showRemoved ? (
              <RemovedContent id={id} url={p.url} run={p.runId} />
            ) : (
              <button type="button" onClick={() => setShowRemoved(true)}>
                Show what the filters removed
              </button>
            )}
            <h3>Earlier versions</h3>
            {p.versions.length ? (
              <ul>
                {p.versions.map((v) => (
                  <li key={v.runId}>
                    <Link to={`/projects/${id}/page?url=${encodeURIComponent(p.url)}&run=${v.runId}`}>
                      {when(v.crawledAt)}
                    </Link>{' '}
                    · {v.verdict ?? '—'} · {num(v.words)} words
                  </li>
                ))}
              </ul>
            ) : (
              <Empty>This is the first run with this page.</Empty>
            )}
          </>
        );
      }}
    </ProjectFrame>
  );
};
