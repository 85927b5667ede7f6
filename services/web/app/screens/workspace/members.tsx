// Members of the workspace and its open invitations: change a role, remove someone, invite by
// e-mail (without a mail host the answer carries the invitation link, shown once to pass on).
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api';
import { useTitle } from '../../router';
import { canAdmin, useSignedIn, type Role } from '../../session';
import { when } from '../../ui/format';
import { Field, Select } from '../../ui/fields';
import { useLoad } from '../../ui/load';
import { Empty, ErrorNote, Loading, useAction } from '../../ui/states';
import { CopyButton } from '../../ui/widgets';

interface Member {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  emailVerified: boolean;
  joinedAt: string;
}
interface Invite {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
  expiresAt: string;
}
const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];

const InviteForm = ({ onSent }: { onSent(): void }) => {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [link, setLink] = useState<{ email: string; url: string } | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const action = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setLink(null);
    setNote(null);
    const sent = await action.run(() =>
      api.post<Invite & { token?: string; sent: boolean }>('/auth/invites', { email: email.trim(), role }),
    );
    if (!sent) return;
    if (sent.token)
      setLink({ email: sent.email, url: `${window.location.origin}/invite?token=${encodeURIComponent(sent.token)}` });
    else setNote(`An invitation is on its way to ${sent.email}.`);
    setEmail('');
    onSent();
  };
  return (
    <section aria-labelledby="invite">
      <h2 id="invite">Invite someone</h2>
      {link && (
        <div className="secret" role="status">
          <p>
            No mail host is configured: pass this link to <strong>{link.email}</strong> yourself. It is shown this once.
          </p>
          <p>
            <code aria-label="Invitation link">{link.url}</code> <CopyButton text={link.url} label="Copy the link" />
          </p>
        </div>
      )}
      {note && <p role="status">{note}</p>}
      <form onSubmit={submit} className="grid-2">
        <Field label="E-mail" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <Select label="Role" value={role} onChange={(e) => setRole(e.target.value as Role)} options={ROLES} />
        <div className="actions">
          <button type="submit" className="primary" disabled={action.busy}>
            Send invitation
          </button>
        </div>
      </form>
      <ErrorNote error={action.error} />
    </section>
  );
};

export const MembersScreen = () => {
  useTitle('Members');
  const session = useSignedIn();
  const admin = canAdmin(session);
  const list = useLoad<{ data: Member[]; invites: Invite[] }>('/auth/members');
  const [error, setError] = useState<ApiError | null>(null);
  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
      await list.reload();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  return (
    <>
      <h1>Members</h1>
      {admin && <InviteForm onSent={() => void list.reload()} />}
      <ErrorNote error={error} />
      <h2>People in {session.workspace.name}</h2>
      {list.error && <ErrorNote error={list.error} />}
      {!list.data ? (
        !list.error && <Loading />
      ) : (
        <>
          <div className="table-wrap">
            <table className="stack">
              <thead>
                <tr>
                  <th scope="col">Member</th>
                  <th scope="col">Role</th>
                  <th scope="col">Joined</th>
                  <th scope="col">
                    <span className="visually-hidden">Remove</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((m) => (
                  <tr key={m.id}>
                    <td data-label="Member">
                      {m.name ? `${m.name} · ` : ''}
                      {m.email}
                      {!m.emailVerified && <span className="muted"> (e-mail unconfirmed)</span>}
                    </td>
                    <td data-label="Role">
                      {admin && m.id !== session.user.id ? (
                        <label>
                          <span className="visually-hidden">Role of {m.email}</span>
                          <select
                            value={m.role}
                            onChange={(e) =>
                              void act(() => api.patch(`/auth/members/${m.id}`, { role: e.target.value }))
                            }
                          >
                            {ROLES.map((r) => (
                              <option key={r}>{r}</option>
                            ))}
                          </select>
                        </label>
                      ) : (
                        m.role
                      )}
                    </td>
                    <td data-label="Joined">{when(m.joinedAt)}</td>
                    <td>
                      {admin && m.id !== session.user.id && (
                        <button
                          type="button"
                          aria-label={`Remove ${m.email}`}
                          onClick={() => {
                            if (window.confirm(`Remove ${m.email} from ${session.workspace.name}?`))
                              void act(() => api.delete(`/auth/members/${m.id}`));
                          }}
                        >
                          Remove
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h2>Open invitations</h2>
          {list.data.invites.length === 0 ? (
            <Empty>No invitation is waiting.</Empty>
          ) : (
            <div className="table-wrap">
              <table className="stack">
                <thead>
                  <tr>
                    <th scope="col">E-mail</th>
                    <th scope="col">Role</th>
                    <th scope="col">Expires</th>
                    <th scope="col">
                      <span className="visually-hidden">Cancel</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.invites.map((i) => (
                    <tr key={i.id}>
                      <td data-label="E-mail">{i.email}</td>
                      <td data-label="Role">{i.role}</td>
                      <td data-label="Expires">{when(i.expiresAt)}</td>
                      <td>
                        {admin && (
                          <button
                            type="button"
                            aria-label={`Cancel the invitation of ${i.email}`}
                            onClick={() => void act(() => api.delete(`/auth/invites/${i.id}`))}
                          >
                            Cancel
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </>
  );
};
