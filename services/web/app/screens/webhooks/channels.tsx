// Every project's webhook and chat channel with its health, then the delivery log.
import { Link, useTitle } from '../../router';
import { when } from '../../ui/format';
import { usePaged } from '../../ui/load';
import { Badge, PagedView } from '../../ui/widgets';
import { DeliveryLog } from './deliveries';

export interface Health {
  status: string;
  lastAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  recent: { delivered: number; pending: number; failed: number; paused: number };
}
interface Channel {
  projectId: string;
  projectName: string;
  kind: 'webhook' | 'chat';
  service: string | null;
  url: string;
  events: string[];
  health: Health;
}

export const HealthLine = ({ health }: { health: Health }) => (
  <span>
    <Badge kind={health.status} /> {health.recent.delivered} delivered, {health.recent.pending} pending,{' '}
    {health.recent.failed} failed, {health.recent.paused} paused
    {health.lastAttemptAt && <span className="muted"> · last try {when(health.lastAttemptAt)}</span>}
    {health.lastError && <span className="muted"> · {health.lastError}</span>}
  </span>
);

export const ChannelsScreen = () => {
  useTitle('Webhooks');
  const list = usePaged<Channel>('/webhooks?limit=50');
  return (
    <>
      <h1>Webhooks and chat channels</h1>
      <PagedView
        list={list}
        empty="No project sends webhooks or chat messages yet: set webhook_url or chat_url in a project's settings."
      >
        {(rows) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Project</th>
                  <th scope="col">Channel</th>
                  <th scope="col">Events</th>
                  <th scope="col">Health</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((c) => (
                  <tr key={c.projectId + c.kind}>
                    <td>
                      <Link to={`/projects/${c.projectId}/webhooks`}>{c.projectName}</Link>
                    </td>
                    <td>
                      {c.kind}
                      {c.service ? ` (${c.service})` : ''}: {c.url}
                    </td>
                    <td>{c.events.join(', ') || '—'}</td>
                    <td>
                      <HealthLine health={c.health} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </PagedView>
      <DeliveryLog />
    </>
  );
};
