import { useEffect, useState } from 'react';
import { api } from '../../api';
import { Link, navigate, useLocation } from '../../router';
import { canWrite, useSignedIn } from '../../session';
import type { ChangeEntry, ChangeRecord } from '../../types';
import { shortUrl } from '../../ui/format';
import { useLoad } from '../../ui/load';
import { ErrorNote, Loading, useAction } from '../../ui/states';
import { Badge } from '../../ui/widgets';
import { ChangeSummary } from './change-summary';
import { ProjectFrame } from './project-frame';

const diffLink = (projectId: string, runId: string, url: string) =>
  `/projects/${projectId}/diff?run=${runId}&url=${encodeURIComponent(url)}`;

/** One entry in full: what changed, the fields and selectors it touched, where a page moved. */
const EntryDetail = ({ projectId, runId, entry }: { projectId: string; runId: string; entry: ChangeEntry }) => (
  <article className="entry" aria-labelledby={`entry-${entry.id}`}>
    <h3 id={`entry-${entry.id}`}>
      <Badge kind={entry.kind} /> {shortUrl(entry.url)}
    </h3>
    <p className="muted">{entry.url}</p>
    {entry.reason && <p>{entry.reason}</p>}
    <p>
      {entry.wordsAdded} words added, {entry.wordsRemoved} removed
      {entry.section && <> · mostly in “{entry.section}”</>}
      {entry.volatileBlocks > 0 && <> · {entry.volatileBlocks} noise blocks set aside</>}
    </p>
    {entry.movedTo && (
      <p className="moved">
        Moved to <Link to={diffLink(projectId, runId, entry.movedTo)}>{shortUrl(entry.movedTo)}</Link> (same content)
      </p>
    )}
    {entry.movedFrom && <p className="moved">Moved here from {shortUrl(entry.movedFrom)} (same content)</p>}
    {entry.fields.length > 0 && (
      <p>
        Fields changed: <strong>{entry.fields.join(', ')}</strong>
      </p>
    )}
    {entry.selectorBreaks.length > 0 && (
      <div className="selector-breaks">
        <h4>Selector breaks</h4>
        <ul>
          {entry.selectorBreaks.map((b) => (
            <li key={b.field}>
              Field <strong>{b.field}</strong>: <code>{b.selector}</code> matches nothing now.{' '}
              {b.repointed ? (
                <>
                  Proposed: <code>{b.repointed.selector}</code> ({Math.round(b.repointed.confidence * 100)}% sure),
                  which reads “{b.repointed.value}”.
                </>
              ) : (
                'No new selector was found with confidence.'
              )}
            </li>
          ))}
        </ul>
      </div>
    )}
    {(entry.kind === 'modified' || entry.kind === 'added' || entry.kind === 'removed') && (
      <p>
        <Link to={diffLink(projectId, runId, entry.url)}>Word and markup diff</Link>
      </p>
    )}
  </article>
);

export const ChangeRecordScreen = ({ id }: { id: string }) => {
  const session = useSignedIn();
  const { query } = useLocation();
  const runId = query.get('run');
  const record = useLoad<ChangeRecord>(`/projects/${id}/changes${runId ? `?run_id=${runId}` : ''}`);
  const [entries, setEntries] = useState<ChangeEntry[]>([]);
  const [showSame, setShowSame] = useState(false);
  const [index, setIndex] = useState(0);
  const review = useAction();
  useEffect(() => setEntries(record.data?.entries ?? []), [record.data]);

  const shown = entries.filter((e) => showSame || e.kind !== 'same');
  const queue = shown.filter((e) => !e.reviewed);
  const current = queue[Math.min(index, queue.length - 1)];

  const mark = async (entry: ChangeEntry, reviewed: boolean) => {
    const res = await review.run(() =>
      api.post<{ id: string; reviewed: boolean }>(`/projects/${id}/changes/${entry.id}/review`, { reviewed }),
    );
    if (res) setEntries((all) => all.map((e) => (e.id === res.id ? { ...e, reviewed: res.reviewed } : e)));
  };

  return (
    <ProjectFrame id={id} title="Changes">
      {() => {
        if (record.error?.status === 404)
          return <p className="empty">No change record yet: a run is compared once it ends.</p>;
        if (record.error) return <ErrorNote error={record.error} />;
        if (!record.data) return <Loading />;
        const r = record.data;
        return (
          <>
            <h2>Change record of run {r.runId}</h2>
            <ChangeSummary projectId={id} record={r} />
            <label className="check">
              <input type="checkbox" checked={showSame} onChange={(e) => setShowSame(e.target.checked)} /> Show pages
              that stayed the same
            </label>

            <section aria-label="Review" className="review">
              <h2>
                To review: {queue.length} of {shown.length}
              </h2>
              {current ? (
                <>
                  <EntryDetail projectId={id} runId={r.runId} entry={current} />
                  <div className="actions">
                    <button
                      type="button"
                      className="primary"
                      disabled={review.busy || !canWrite(session)}
                      onClick={() => void mark(current, true)}
                    >
                      Mark reviewed
                    </button>
                    <button type="button" onClick={() => setIndex((i) => (i + 1) % Math.max(queue.length, 1))}>
                      Skip for now
                    </button>
                  </div>
                  <ErrorNote error={review.error} />
                </>
              ) : (
                <p className="empty">Every entry is reviewed.</p>
              )}
            </section>

            <h2>All entries</h2>
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Page</th>
                    <th scope="col">Change</th>
                    <th scope="col">Words</th>
                    <th scope="col">Fields</th>
                    <th scope="col">Reviewed</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((e) => (
                    <tr key={e.id}>
                      <td>
                        {e.kind === 'same' ? (
                          shortUrl(e.url)
                        ) : (
                          <Link to={diffLink(id, r.runId, e.url)}>{shortUrl(e.url)}</Link>
                        )}
                        {e.movedTo && <span className="muted"> → {shortUrl(e.movedTo)}</span>}
                      </td>
                      <td>
                        <Badge kind={e.kind} />
                        {e.selectorBreaks.length > 0 && <Badge kind="break">selector break</Badge>}
                      </td>
                      <td>
                        +{e.wordsAdded} −{e.wordsRemoved}
                      </td>
                      <td>{e.fields.join(', ') || '—'}</td>
                      <td>
                        <label className="check">
                          <input
                            type="checkbox"
                            checked={e.reviewed}
                            disabled={!canWrite(session)}
                            onChange={(ev) => void mark(e, ev.target.checked)}
                          />
                          <span className="visually-hidden">Reviewed: {shortUrl(e.url)}</span>
                        </label>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p>
              <button type="button" className="link" onClick={() => navigate(`/projects/${id}`)}>
                Back to the project
              </button>
            </p>
          </>
        );
      }}
    </ProjectFrame>
  );
};
