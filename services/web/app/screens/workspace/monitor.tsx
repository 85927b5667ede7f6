// What is queued and running now: GET /me/monitor, read again every two seconds — the
// workspace's runs, crawls and scrapes with their progress, the work lanes (JetStream's
// consumers), the workers on the bus and the browser pool.
import { Link, useTitle } from '../../router';
import { num, when } from '../../ui/format';
import { useLoad, usePoll } from '../../ui/load';
import { Empty, ErrorNote, Loading } from '../../ui/states';
import { Badge, Progress } from '../../ui/widgets';

interface Monitor {
  work: {
    id: string;
    kind: string;
    status: 'queued' | 'running';
    projectId: string | null;
    projectName: string | null;
    runId: string | null;
    progress: { done: number; total: number; queued: number };
    creditsUsed: number;
    createdAt: string;
  }[];
  lanes: {
    durable: string;
    subject: string;
    pending: number;
    inFlight: number;
    redelivered: number;
    waitingWorkers: number;
  }[];
  workers: {
    service: string;
    instance: string;
    host: string;
    pid: number;
    startedAt: string;
    consumers: { durable: string; inFlight: number; concurrency: number }[];
  }[];
  browserPool:
    | {
        available: true;
        queued: number;
        tabsPerBrowser: number;
        browsers: { id: number; up: boolean; inFlight: number; renders: number; idleLanes: number }[];
      }
    | { available: false; reason: string };
}

export const MonitorScreen = () => {
  useTitle('Monitor');
  const monitor = useLoad<Monitor>('/me/monitor');
  usePoll(true, 2000, monitor.reload);
  if (!monitor.data) return monitor.error ? <ErrorNote error={monitor.error} /> : <Loading />;
  const { work, lanes, workers, browserPool } = monitor.data;
  return (
    <>
      <h1>Monitor</h1>
      <ErrorNote error={monitor.error} />
      <section aria-labelledby="work">
        <h2 id="work">Queued and running</h2>
        {work.length === 0 ? (
          <Empty>Nothing is queued or running in this workspace.</Empty>
        ) : (
          <div className="table-wrap">
            <table className="stack">
              <thead>
                <tr>
                  <th scope="col">Work</th>
                  <th scope="col">Status</th>
                  <th scope="col">Progress</th>
                  <th scope="col">Credits</th>
                  <th scope="col">Started</th>
                </tr>
              </thead>
              <tbody>
                {work.map((w) => (
                  <tr key={w.id}>
                    <td data-label="Work">
                      {w.kind}{' '}
                      {w.projectId && w.kind === 'run' ? (
                        <Link to={`/projects/${w.projectId}`}>{w.projectName ?? w.projectId}</Link>
                      ) : (
                        <code>{w.id}</code>
                      )}
                    </td>
                    <td data-label="Status">
                      <Badge kind={w.status} />
                    </td>
                    <td data-label="Progress">
                      <Progress done={w.progress.done} total={w.progress.total} label={`Progress of ${w.id}`} />
                      <span className="muted">{w.progress.queued} queued</span>
                    </td>
                    <td data-label="Credits">{num(w.creditsUsed)}</td>
                    <td data-label="Started">{when(w.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="lanes">
        <h2 id="lanes">Work lanes</h2>
        <div className="table-wrap">
          <table className="stack">
            <thead>
              <tr>
                <th scope="col">Lane</th>
                <th scope="col">Subject</th>
                <th scope="col">Waiting</th>
                <th scope="col">In flight</th>
                <th scope="col">Redelivered</th>
                <th scope="col">Idle workers</th>
              </tr>
            </thead>
            <tbody>
              {lanes.map((l) => (
                <tr key={l.durable}>
                  <th scope="row" data-label="Lane">
                    {l.durable}
                  </th>
                  <td data-label="Subject">
                    <code>{l.subject}</code>
                  </td>
                  <td data-label="Waiting">{num(l.pending)}</td>
                  <td data-label="In flight">{num(l.inFlight)}</td>
                  <td data-label="Redelivered">{num(l.redelivered)}</td>
                  <td data-label="Idle workers">{num(l.waitingWorkers)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="workers">
        <h2 id="workers">Workers</h2>
        <div className="table-wrap">
          <table className="stack">
            <thead>
              <tr>
                <th scope="col">Service</th>
                <th scope="col">Worker</th>
                <th scope="col">Lanes taken (in flight / at most)</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {workers.map((w) => (
                <tr key={w.instance}>
                  <th scope="row" data-label="Service">
                    {w.service}
                  </th>
                  <td data-label="Worker">
                    <code>{w.instance}</code>
                  </td>
                  <td data-label="Lanes">
                    {w.consumers.map((c) => `${c.durable} ${c.inFlight}/${c.concurrency}`).join(', ') || '—'}
                  </td>
                  <td data-label="Since">{when(w.startedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="pool">
        <h2 id="pool">Browser pool</h2>
        {browserPool.available ? (
          <p>
            {browserPool.browsers.filter((b) => b.up).length} of {browserPool.browsers.length} browsers up,{' '}
            {browserPool.tabsPerBrowser} tabs each; {browserPool.queued} renders waiting for a tab;{' '}
            {browserPool.browsers.reduce((n, b) => n + b.inFlight, 0)} rendering now.
          </p>
        ) : (
          <p>The browser pool did not answer: {browserPool.reason}</p>
        )}
      </section>
    </>
  );
};
