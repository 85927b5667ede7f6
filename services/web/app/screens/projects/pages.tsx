// Pages of a run: the query language (status:403 depth:>2), verdict and flag filters, and a
// search over the stored bodies (words in markdown, or a CSS / XPath selector in html).
import { useState, type FormEvent } from 'react';
import { api, withQuery } from '../../api';
import { Link, navigate, useLocation } from '../../router';
import type { PageRow } from '../../types';
import { Field, Select } from '../../ui/fields';
import { num, shortUrl } from '../../ui/format';
import { usePaged } from '../../ui/load';
import { ErrorNote, useAction } from '../../ui/states';
import { Badge, PagedView } from '../../ui/widgets';
import { ProjectFrame } from './project-frame';

const VERDICTS = ['ok', 'thin', 'blocked', 'skipped', 'robots', 'cached'];
const FLAGS = [
  ['', 'any'],
  ['orphan', 'orphans (in the sitemap, linked from nowhere)'],
  ['unlisted', 'unlisted (linked, not in the sitemap)'],
  ['dead_end', 'dead ends (no link onward)'],
] as const;

interface SearchResult {
  counts: { pages: number; scanned: number; unscanned: number; matched: number };
  matches: { url: string; count: number; snippet: string; body: string }[];
  truncated: boolean;
}

const pageLink = (id: string, url: string, run: string | null) =>
  `/projects/${id}/page?url=${encodeURIComponent(url)}${run ? `&run=${run}` : ''}`;

const Search = ({ id, run }: { id: string; run: string | null }) => {
  const [q, setQ] = useState('');
  const [mode, setMode] = useState('content');
  const [result, setResult] = useState<SearchResult | null>(null);
  const action = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await action.run(() =>
      api.post<SearchResult>(`/projects/${id}/pages/search`, { q, mode, ...(run ? { run_id: run } : {}) }),
    );
    if (r) setResult(r);
  };
  return (
    <section className="panel" aria-labelledby="search-title">
      <h2 id="search-title">Search the stored pages</h2>
      <form onSubmit={submit} className="inline">
        <Field
          label="Search for"
          value={q}
          onChange={(e) => setQ(e.target.value)}
          required
          placeholder='showers "visitor pontoon"'
        />
        <Select
          label="In"
          value={mode}
          onChange={(e) => setMode(e.target.value)}
          options={[
            ['content', 'the text (words and "phrases")'],
            ['selector', 'the markup (CSS or XPath)'],
          ]}
        />
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Searching…' : 'Search'}
        </button>
      </form>
      <ErrorNote error={action.error} />
      {result && (
        <div role="status">
          <p>
            {result.counts.matched} of {result.counts.scanned} pages match
            {result.counts.unscanned > 0 && ` (${result.counts.unscanned} had no stored body to search)`}.
          </p>
          <ul>
            {result.matches.map((m) => (
              <li key={m.url}>
                <Link to={pageLink(id, m.url, run)}>{shortUrl(m.url)}</Link> ({m.count}):{' '}
                <span className="muted">{m.snippet}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
};

export const PagesScreen = ({ id }: { id: string }) => {
  const { query } = useLocation();
  const run = query.get('run');
  const [q, setQ] = useState(query.get('q') ?? '');
  const [verdicts, setVerdicts] = useState<string[]>(query.get('v')?.split(',').filter(Boolean) ?? []);
  const [flag, setFlag] = useState(query.get('flag') ?? '');
  const filters = { run_id: run, q: query.get('q'), v: query.get('v'), flag: query.get('flag'), limit: 50 };
  const list = usePaged<PageRow>(withQuery(`/projects/${id}/pages`, filters));
  const apply = (e: FormEvent) => {
    e.preventDefault();
    navigate(withQuery(`/projects/${id}/pages`, { run, q: q.trim(), v: verdicts.join(','), flag }));
  };
  return (
    <ProjectFrame id={id} title="Pages">
      {() => (
        <>
          <form onSubmit={apply} className="panel filters" aria-label="Filter pages">
            <Field
              label="Query"
              value={q}
              onChange={(e) => setQ(e.target.value)}
              placeholder="status:403 depth:>2 url:/docs/ words:<100"
              hint="Terms all required: field:value, field:>n, -term to negate, bare words match the URL. Fields: url, title, status, depth, words, inLinks, verdict, errorCode, foundVia, method, tier, orphan, unlisted, deadEnd…"
            />
            <fieldset className="field multi">
              <legend>Verdicts</legend>
              {VERDICTS.map((v) => (
                <label key={v} className="check">
                  <input
                    type="checkbox"
                    checked={verdicts.includes(v)}
                    onChange={(e) => setVerdicts(e.target.checked ? [...verdicts, v] : verdicts.filter((x) => x !== v))}
                  />
                  {v}
                </label>
              ))}
            </fieldset>
            <Select label="Link graph" options={FLAGS} value={flag} onChange={(e) => setFlag(e.target.value)} />
            <button type="submit" className="primary">
              Apply
            </button>
          </form>
          <PagedView list={list} empty="No page of this run matches.">
            {(rows) => (
              <div className="table-wrap">
                <table>
                  <caption>
                    Pages of {run ? `run ${run}` : 'the latest finished run'}
                    {list.first?.runId ? ` (${String(list.first.runId)})` : ''}
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Page</th>
                      <th scope="col">Status</th>
                      <th scope="col">Verdict</th>
                      <th scope="col">Words</th>
                      <th scope="col">Depth</th>
                      <th scope="col">Found via</th>
                      <th scope="col">In-links</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((p) => (
                      <tr key={p.url}>
                        <td>
                          <Link to={pageLink(id, p.url, run)}>{shortUrl(p.url)}</Link>
                          {p.orphan && <Badge kind="orphan">orphan</Badge>}
                          {p.unlisted && <Badge kind="unlisted">unlisted</Badge>}
                        </td>
                        <td>{p.httpStatus ?? '—'}</td>
                        <td>{p.verdict ? <Badge kind={p.verdict} /> : '—'}</td>
                        <td>{num(p.words)}</td>
                        <td>{p.depth ?? '—'}</td>
                        <td>{p.foundVia ?? '—'}</td>
                        <td>{num(p.inLinks)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </PagedView>
          <Search id={id} run={run} />
        </>
      )}
    </ProjectFrame>
  );
};
