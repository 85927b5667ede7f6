import { Link, useLocation } from '../../router';
import { shortUrl } from '../../ui/format';
import { useLoad } from '../../ui/load';
import { Empty, ErrorNote, Loading } from '../../ui/states';
import { Badge } from '../../ui/widgets';
import { ProjectFrame } from './project-frame';

interface Hunk {
  section: string | null;
  removed: string;
  added: string;
  wordsRemoved: number;
  wordsAdded: number;
  contextBefore: string;
  contextAfter: string;
}
interface WordDiff {
  url: string;
  runId: string;
  baseline: string | null;
  kind: string;
  wordsAdded: number;
  wordsRemoved: number;
  hunks: Hunk[];
}
interface MarkupChange {
  path: string;
  kind: string;
  before: string | null;
  after: string | null;
  volatile: boolean;
}
interface MarkupDiff {
  changes: MarkupChange[];
  truncated: boolean;
}

/** One hunk as two columns: the text before with what went, the text after with what came. */
const HunkRow = ({ hunk }: { hunk: Hunk }) => (
  <div className="hunk">
    {hunk.section && <p className="hunk-section">{hunk.section}</p>}
    <div className="side-by-side">
      <div className="before" aria-label="Before">
        <span className="context">{hunk.contextBefore} </span>
        {hunk.removed ? <del>{hunk.removed}</del> : <span className="nothing">(nothing)</span>}
        <span className="context"> {hunk.contextAfter}</span>
      </div>
      <div className="after" aria-label="After">
        <span className="context">{hunk.contextBefore} </span>
        {hunk.added ? <ins>{hunk.added}</ins> : <span className="nothing">(nothing)</span>}
        <span className="context"> {hunk.contextAfter}</span>
      </div>
    </div>
  </div>
);

export const PageDiffScreen = ({ id }: { id: string }) => {
  const { query } = useLocation();
  const url = query.get('url') ?? '';
  const run = query.get('run');
  const q = `url=${encodeURIComponent(url)}${run ? `&run_id=${run}` : ''}`;
  const words = useLoad<WordDiff>(`/projects/${id}/changes/page?${q}`);
  const markup = useLoad<MarkupDiff>(`/projects/${id}/changes/markup?${q}`);
  return (
    <ProjectFrame id={id} title="Page diff">
      {() => (
        <>
          <h2>{shortUrl(url)}</h2>
          <p className="muted">
            {url} ·{' '}
            <Link to={`/projects/${id}/page?url=${encodeURIComponent(url)}${run ? `&run=${run}` : ''}`}>
              The page in full
            </Link>
          </p>
          <section aria-labelledby="word-diff">
            <h3 id="word-diff">Word diff</h3>
            {words.loading ? (
              <Loading />
            ) : words.error ? (
              <ErrorNote error={words.error} />
            ) : words.data ? (
              <>
                <p>
                  <Badge kind={words.data.kind} /> {words.data.wordsAdded} words added, {words.data.wordsRemoved}{' '}
                  removed
                </p>
                <div className="columns-head" aria-hidden="true">
                  <span>Before</span>
                  <span>After</span>
                </div>
                {words.data.hunks.length ? (
                  words.data.hunks.map((h, i) => <HunkRow key={i} hunk={h} />)
                ) : (
                  <Empty>No words changed.</Empty>
                )}
              </>
            ) : null}
          </section>
          <section aria-labelledby="markup-diff">
            <h3 id="markup-diff">Markup diff</h3>
            {markup.loading ? (
              <Loading />
            ) : markup.error ? (
              <ErrorNote error={markup.error} />
            ) : markup.data && markup.data.changes.length ? (
              <div className="table-wrap">
                <table className="stack">
                  <thead>
                    <tr>
                      <th scope="col">Element</th>
                      <th scope="col">Change</th>
                      <th scope="col">Before</th>
                      <th scope="col">After</th>
                    </tr>
                  </thead>
                  <tbody>
                    {markup.data.changes.map((c, i) => (
                      <tr key={i} className={c.volatile ? 'volatile' : undefined}>
                        <td data-label="Element">
                          <code>{c.path}</code>
                        </td>
                        <td data-label="Change">
                          <Badge kind={c.kind} />
                          {c.volatile && <Badge kind="noise">noise</Badge>}
                        </td>
                        <td data-label="Before">{c.before ?? '—'}</td>
                        <td data-label="After">{c.after ?? '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                {markup.data.truncated && <p className="muted">Only the first changes are shown.</p>}
              </div>
            ) : (
              <Empty>No markup changed.</Empty>
            )}
          </section>
        </>
      )}
    </ProjectFrame>
  );
};
