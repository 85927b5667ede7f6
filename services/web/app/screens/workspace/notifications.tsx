// The signed-in member's inbox of run and monitor notifications (kept while no mail host is
// configured), each dismissed with POST /me/notifications/{id}/seen.
import { useState } from 'react';
import { api, ApiError } from '../../api';
import { Link, useTitle } from '../../router';
import { when } from '../../ui/format';
import { usePaged } from '../../ui/load';
import { ErrorNote } from '../../ui/states';
import { Badge, PagedView } from '../../ui/widgets';

interface Notification {
  id: string;
  kind: 'run' | 'monitor';
  event: string;
  projectId: string | null;
  runId: string | null;
  title: string;
  body: string;
  createdAt: string;
}

export const NotificationsScreen = () => {
  useTitle('Notifications');
  const list = usePaged<Notification>('/me/notifications?limit=25');
  const [error, setError] = useState<ApiError | null>(null);
  const dismiss = async (n: Notification) => {
    setError(null);
    try {
      await api.post(`/me/notifications/${n.id}/seen`);
      await list.reload();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  return (
    <>
      <h1>Notifications</h1>
      <p className="muted">
        What a run or the site monitor had to tell you. With a mail host configured these arrive by e-mail instead.
      </p>
      <ErrorNote error={error} />
      <PagedView list={list} empty="Nothing new: every notification is dismissed.">
        {(rows) => (
          <ul className="cards">
            {rows.map((n) => (
              <li key={n.id}>
                <strong>
                  <Badge kind={n.kind} /> {n.title}
                </strong>
                <span className="muted">
                  {n.event} · {when(n.createdAt)}
                </span>
                <span className="pre-line">{n.body}</span>
                <span className="actions">
                  {n.projectId && (
                    <Link to={`/projects/${n.projectId}${n.runId ? `/changes?run=${n.runId}` : ''}`}>
                      Open the project
                    </Link>
                  )}
                  <button type="button" onClick={() => void dismiss(n)} aria-label={`Dismiss ${n.title}`}>
                    Dismiss
                  </button>
                </span>
              </li>
            ))}
          </ul>
        )}
      </PagedView>
    </>
  );
};
