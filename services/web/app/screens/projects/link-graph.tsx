// The link graph of a run (orphans, unlisted pages, dead ends, each with whether it is a verdict)
// and discovery: the stored sitemap tree, its diff against the snapshot before, its entries.
import { useState } from 'react';
import { api, withQuery } from '../../api';
import { Link, useLocation } from '../../router';
import type { Run } from '../../types';
import { num, shortUrl, when } from '../../ui/format';
import { useLoad, usePaged, usePoll } from '../../ui/load';
import { Empty, ErrorNote, Loading, useAction } from '../../ui/states';
import { PagedView } from '../../ui/widgets';
import { ProjectFrame } from './project-frame';

const SETS = [
  ['orphans', 'Orphans', 'listed in the sitemap, linked from no page'],
  ['unlisted', 'Unlisted', 'linked from pages, missing from the sitemap'],
  ['dead_ends', 'Dead ends', 'pages with no link onward'],
] as const;

interface LinkRow {
  url: string;
  depth: number;
  inLinks: number;
  outLinks: number;
  foundVia: string;
  firstReferer: string | null;
}

const LinkSet = ({ id, runId, kind }: { id: string; runId: string; kind: string }) => {
  const list = usePaged<LinkRow>(`/projects/${id}/runs/${runId}/links?kind=${kind}&limit=50`);
  const coverage = list.first?.coverage as { verdict: boolean; reason: string | null } | undefined;
  return (
    <>
      {coverage && (
        <p className={coverage.verdict ? 'coverage ok' : 'coverage warn'}>
          {coverage.verdict
            ? 'A verdict: the run read the whole site and its sitemap.'
            : `Not a verdict: ${coverage.reason}`}
        </p>
      )}
      <PagedView list={list} empty="None in this run.">
        {(rows) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Page</th>
                  <th scope="col">In-links</th>
                  <th scope="col">Out-links</th>
                  <th scope="col">Found via</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.url}>
                    <td>
                      <Link to={`/projects/${id}/page?url=${encodeURIComponent(r.url)}&run=${runId}`}>
                        {shortUrl(r.url)}
                      </Link>
                    </td>
                    <td>{r.inLinks}</td>
                    <td>{r.outLinks}</td>
                    <td>
                      {r.foundVia}
                      {r.firstReferer && <span className="muted"> from {shortUrl(r.firstReferer)}</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </PagedView>
    </>
  );
};

interface DiscoveryFile {
  file: string;
  urls: number;
  source: string;
  section: string | null;
  lastmod: { min: string | null; max: string | null } | null;
}
interface Discovery {
  discovery: {
    id: string;
    createdAt: string;
    files: DiscoveryFile[];
    feeds: { url: string; entries?: number }[];
    robots: {
      url: string;
      found: boolean;
      status: number | null;
      sitemaps: string[];
      crawlDelay: number | null;
    } | null;
    totals: { urls: number; files: number; blocked: number; indexes: number };
    diff: Record<string, unknown> | null;
  } | null;
  job: { id: string; status: string } | null;
}
interface Entry {
  url: string;
  lastmod: string | null;
  section: string | null;
}

const DiffSummary = ({ diff }: { diff: Record<string, unknown> }) => (
  <ul>
    {Object.entries(diff).map(([k, v]) => (
      <li key={k}>
        {k}:{' '}
        {Array.isArray(v)
          ? `${v.length}${
              v.length
                ? ` (${v
                    .slice(0, 5)
                    .map((x) => (typeof x === 'string' ? shortUrl(x) : JSON.stringify(x)))
                    .join(', ')})`
                : ''
            }`
          : JSON.stringify(v)}
      </li>
    ))}
  </ul>
);

const DiscoveryPanel = ({ id }: { id: string }) => {
  const d = useLoad<Discovery>(`/projects/${id}/discovery`);
  const [file, setFile] = useState<string | null>(null);
  const entries = usePaged<Entry>(file ? withQuery(`/projects/${id}/discovery/entries`, { file, limit: 50 }) : null);
  const snapshot = useAction();
  usePoll(Boolean(d.data?.job), 1000, d.reload);
  const take = async () => {
    if (await snapshot.run(() => api.post(`/projects/${id}/discovery`))) await d.reload();
  };
  const s = d.data?.discovery;
  return (
    <section aria-labelledby="discovery-title">
      <h2 id="discovery-title">Discovery</h2>
      <button type="button" onClick={() => void take()} disabled={snapshot.busy || Boolean(d.data?.job)}>
        Take a new snapshot
      </button>{' '}
      <span className="muted">Billed as a map: 1 credit per sitemap file read.</span>
      <ErrorNote error={snapshot.error ?? d.error} />
      {d.data?.job && <Loading what="Reading the sitemaps" />}
      {d.data && !s && !d.data.job && <Empty>No snapshot yet.</Empty>}
      {s && (
        <>
          <p>
            Snapshot of {when(s.createdAt)}: robots.txt {s.robots?.found ? `answered ${s.robots.status}` : 'not found'};{' '}
            {num(s.totals.files)} files, {num(s.totals.urls)} URLs, {num(s.totals.blocked)} blocked.
          </p>
          <div className="table-wrap">
            <table>
              <caption>The sitemap tree</caption>
              <thead>
                <tr>
                  <th scope="col">File</th>
                  <th scope="col">Section</th>
                  <th scope="col">URLs</th>
                  <th scope="col">Last modified</th>
                </tr>
              </thead>
              <tbody>
                {s.files.map((f) => (
                  <tr key={f.file}>
                    <td>
                      <button type="button" className="link" onClick={() => setFile(f.file)}>
                        {shortUrl(f.file)}
                      </button>
                    </td>
                    <td>{f.section ?? '—'}</td>
                    <td>{num(f.urls)}</td>
                    <td>{f.lastmod ? `${f.lastmod.min ?? '?'} – ${f.lastmod.max ?? '?'}` : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h3>Against the snapshot before</h3>
          {s.diff ? <DiffSummary diff={s.diff} /> : <Empty>This is the first snapshot.</Empty>}
          {file && (
            <>
              <h3>URLs listed by {shortUrl(file)}</h3>
              <PagedView list={entries} empty="This file lists no URL.">
                {(rows) => (
                  <ul>
                    {rows.map((e) => (
                      <li key={e.url}>
                        {shortUrl(e.url)} <span className="muted">{e.lastmod ?? ''}</span>
                      </li>
                    ))}
                  </ul>
                )}
              </PagedView>
            </>
          )}
        </>
      )}
    </section>
  );
};

export const LinkGraphScreen = ({ id }: { id: string }) => {
  const { query } = useLocation();
  const runs = useLoad<{ data: Run[] }>(`/projects/${id}/runs?limit=25`);
  const runId = query.get('run') ?? runs.data?.data.find((r) => r.status === 'done')?.id ?? null;
  const [kind, setKind] = useState<string>('orphans');
  return (
    <ProjectFrame id={id} title="Links and discovery">
      {() => (
        <>
          <h2>Link graph</h2>
          {runs.error && <ErrorNote error={runs.error} />}
          {runs.loading ? (
            <Loading />
          ) : !runId ? (
            <Empty>No finished run yet.</Empty>
          ) : (
            <>
              <div role="tablist" aria-label="Link sets" className="actions">
                {SETS.map(([k, label, what]) => (
                  <button
                    key={k}
                    type="button"
                    role="tab"
                    aria-selected={kind === k}
                    className={kind === k ? 'primary' : undefined}
                    title={what}
                    onClick={() => setKind(k)}
                  >
                    {label}
                  </button>
                ))}
              </div>
              <div role="tabpanel" aria-label={SETS.find((s) => s[0] === kind)![1]}>
                <p className="muted">{SETS.find((s) => s[0] === kind)![2]}.</p>
                <LinkSet key={kind + runId} id={id} runId={runId} kind={kind} />
              </div>
            </>
          )}
          <DiscoveryPanel id={id} />
        </>
      )}
    </ProjectFrame>
  );
};
