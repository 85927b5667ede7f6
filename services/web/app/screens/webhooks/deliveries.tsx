// The delivery log: each webhook and chat message with its attempts, and "Redeliver".
import { api, withQuery } from '../../api';
import { canWrite, useSignedIn } from '../../session';
import { when } from '../../ui/format';
import { usePaged } from '../../ui/load';
import { ErrorNote, useAction } from '../../ui/states';
import { Badge, PagedView } from '../../ui/widgets';

export interface Delivery {
  id: string;
  event: string;
  channel: string;
  service: string | null;
  url: string;
  projectId: string | null;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAt: string | null;
  test: boolean;
  createdAt: string;
  log: {
    attempt: number;
    at: string;
    status: number | null;
    error: string | null;
    durationMs: number;
    outcome: string;
    manual: boolean;
  }[];
}

export const DeliveryLog = ({ projectId }: { projectId?: string }) => {
  const session = useSignedIn();
  const list = usePaged<Delivery>(withQuery('/webhooks/deliveries', { projectId, limit: 20 }));
  const action = useAction();
  const redeliver = async (id: string) => {
    if (await action.run(() => api.post(`/webhooks/deliveries/${id}/redeliver`))) await list.reload();
  };
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Delivery log</h2>
      <ErrorNote error={action.error} />
      <PagedView list={list} empty="Nothing sent yet.">
        {(rows) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">To</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last answer</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((d) => (
                  <tr key={d.id}>
                    <td>
                      {d.event}
                      {d.test && <Badge kind="test">test</Badge>}
                      <div className="muted">{when(d.createdAt)}</div>
                    </td>
                    <td>
                      {d.channel}
                      {d.service ? ` (${d.service})` : ''}: {d.url}
                    </td>
                    <td>
                      <Badge kind={d.status} />
                      {d.nextAt && d.status === 'pending' && <div className="muted">next try {when(d.nextAt)}</div>}
                    </td>
                    <td>
                      <details>
                        <summary>{d.attempts} attempts</summary>
                        <ol>
                          {d.log.map((a) => (
                            <li key={a.attempt + a.at}>
                              {when(a.at)}: {a.outcome} {a.status ?? ''} {a.error ?? ''} ({a.durationMs} ms)
                              {a.manual ? ' · redelivered' : ''}
                            </li>
                          ))}
                        </ol>
                      </details>
                    </td>
                    <td>{d.lastError ?? d.lastStatus ?? '—'}</td>
                    <td>
                      <button
                        type="button"
                        disabled={action.busy || !canWrite(session)}
                        onClick={() => void redeliver(d.id)}
                        aria-label={`Redeliver ${d.event} to ${d.url}`}
                      >
                        Redeliver
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </PagedView>
    </section>
  );
};
