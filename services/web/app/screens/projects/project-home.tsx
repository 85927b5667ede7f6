import { useEffect, useState } from 'react';
import { api, ApiError } from '../../api';
import { Link } from '../../router';
import { canWrite, useSignedIn } from '../../session';
import type { ChangeRecord, Run } from '../../types';
import { num, when } from '../../ui/format';
import { useLoad, usePaged, usePoll } from '../../ui/load';
import { Empty, ErrorNote, Loading, useAction } from '../../ui/states';
import { Badge, PagedView, Progress } from '../../ui/widgets';
import { ChangeSummary } from './change-summary';
import { ProjectFrame } from './project-frame';

const active = (r: Run | undefined) => r !== undefined && (r.status === 'queued' || r.status === 'running');

/** The run going now, followed second by second until it ends. */
const LiveRun = ({ projectId, run, onEnd }: { projectId: string; run: Run; onEnd: () => void }) => {
  const [live, setLive] = useState(run);
  const action = useAction();
  usePoll(active(live), 1000, async () => {
    const next = await api.get<Run>(`/projects/${projectId}/runs/${run.id}`).catch(() => null);
    if (!next) return;
    setLive(next);
    if (!active(next)) onEnd();
  });
  const cancel = async () => {
    const r = await action.run(() => api.post<Run>(`/projects/${projectId}/runs/${run.id}/cancel`));
    if (r) setLive(r);
  };
  if (!active(live)) return null;
  return (
    <section className="live-run" aria-live="polite" aria-label="Run in progress">
      <h2>
        Run {live.status === 'queued' ? 'queued' : 'in progress'} <Badge kind={live.status} />
      </h2>
      <Progress done={live.progress.done} total={live.progress.total} label="Pages fetched" />
      <p className="muted">
        {live.progress.queued} queued · {num(live.creditsUsed)} credits so far
      </p>
      {live.log && live.log.length > 0 && <p className="muted">{live.log[live.log.length - 1]!.message}</p>}
      <button type="button" onClick={() => void cancel()} disabled={action.busy}>
        Cancel run
      </button>
      <ErrorNote error={action.error} />
    </section>
  );
};

/** The latest finished run's change record; a run just finished is compared within seconds. */
const LatestChanges = ({ projectId, runId }: { projectId: string; runId: string }) => {
  const record = useLoad<ChangeRecord>(`/projects/${projectId}/changes?run_id=${runId}`);
  const [tries, setTries] = useState(0);
  const waiting = record.error?.status === 404 && tries < 120;
  usePoll(waiting, 1000, async () => {
    setTries((t) => t + 1);
    await record.reload();
  });
  if (record.data) return <ChangeSummary projectId={projectId} record={record.data} />;
  if (waiting || record.loading) return <Loading what="Comparing with the run before" />;
  return <ErrorNote error={record.error} />;
};

export const ProjectHome = ({ id }: { id: string }) => {
  const session = useSignedIn();
  const runs = usePaged<Run>(`/projects/${id}/runs?limit=10`);
  const start = useAction();
  const [started, setStarted] = useState<Run | null>(null);
  const current = started ?? (active(runs.rows[0]) ? runs.rows[0]! : null);
  const latestDone = runs.rows.find((r) => r.status === 'done' || r.status === 'error' || r.status === 'cancelled');
  useEffect(() => setStarted(null), [runs.first]);

  const runNow = async () => {
    const run = await start.run(() => api.post<Run>(`/projects/${id}/runs`, { trigger: 'manual' }));
    if (run) setStarted(run);
  };

  return (
    <ProjectFrame id={id} title="Overview">
      {() => (
        <>
          <div className="actions">
            <button
              type="button"
              className="primary"
              onClick={() => void runNow()}
              disabled={start.busy || current !== null || !canWrite(session)}
            >
              Run now
            </button>
          </div>
          <ErrorNote error={start.error as ApiError | null} />
          {current && <LiveRun key={current.id} projectId={id} run={current} onEnd={() => void runs.reload()} />}

          <h2>Latest change record</h2>
          {runs.loading && !runs.rows.length ? (
            <Loading />
          ) : latestDone ? (
            <LatestChanges key={latestDone.id} projectId={id} runId={latestDone.id} />
          ) : (
            <Empty>No finished run yet: start one with “Run now”.</Empty>
          )}

          <h2>Runs</h2>
          <PagedView list={runs} empty="No runs yet.">
            {(rows) => (
              <div className="table-wrap">
                <table>
                  <caption className="visually-hidden">Runs of this project, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Started</th>
                      <th scope="col">Status</th>
                      <th scope="col">Pages</th>
                      <th scope="col">Credits</th>
                      <th scope="col">Stop reason</th>
                      <th scope="col">Trigger</th>
                      <th scope="col">
                        <span className="visually-hidden">Links</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((r) => (
                      <tr key={r.id}>
                        <td>{when(r.startedAt ?? r.createdAt)}</td>
                        <td>
                          <Badge kind={r.status} />
                        </td>
                        <td>{num(r.progress.done)}</td>
                        <td>{num(r.creditsUsed)}</td>
                        <td>{r.stop ?? '—'}</td>
                        <td>{r.trigger}</td>
                        <td>
                          {r.status === 'done' && (
                            <>
                              <Link to={`/projects/${id}/changes?run=${r.id}`}>Changes</Link> ·{' '}
                              <Link to={`/projects/${id}/pages?run=${r.id}`}>Pages</Link>
                            </>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </PagedView>
        </>
      )}
    </ProjectFrame>
  );
};
