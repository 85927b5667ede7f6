// The workspace's API keys: the list (paged with next), a new key whose secret is shown once with
// a copy button, and revoking one. Creating and revoking are an admin's (the API says so if not).
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api';
import { useTitle } from '../../router';
import { canAdmin, useSignedIn } from '../../session';
import { when } from '../../ui/format';
import { Field, Select } from '../../ui/fields';
import { usePaged } from '../../ui/load';
import { ErrorNote, useAction } from '../../ui/states';
import { CopyButton, PagedView } from '../../ui/widgets';

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  projects: string[];
  rpm: number | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
}

const NewKey = ({ onCreated }: { onCreated(): void }) => {
  const [name, setName] = useState('');
  const [scope, setScope] = useState('read');
  const [projects, setProjects] = useState('');
  const [days, setDays] = useState('');
  const [rpm, setRpm] = useState('');
  const [secret, setSecret] = useState<{ name: string; key: string } | null>(null);
  const action = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const created = await action.run(() =>
      api.post<ApiKey & { key: string }>('/me/keys', {
        name: name.trim(),
        scopes: [scope],
        projects: projects
          .split(/[\s,]+/)
          .map((p) => p.trim())
          .filter(Boolean),
        expires_in_days: days ? Number(days) : null,
        rpm: rpm ? Number(rpm) : null,
      }),
    );
    if (!created) return;
    setSecret({ name: created.name, key: created.key });
    setName('');
    onCreated();
  };
  return (
    <section aria-labelledby="new-key">
      <h2 id="new-key">New key</h2>
      {secret && (
        <div className="secret" role="status">
          <p>
            The secret of <strong>{secret.name}</strong>. It is shown this once: copy it now.
          </p>
          <p>
            <code aria-label="Secret">{secret.key}</code> <CopyButton text={secret.key} label="Copy the secret" />
          </p>
        </div>
      )}
      <form onSubmit={submit}>
        <div className="grid-2">
          <Field label="Key name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
          <Select
            label="Scope"
            value={scope}
            onChange={(e) => setScope(e.target.value)}
            options={[
              ['read', 'read: reads only'],
              ['write', 'write: runs, projects, scrapes'],
              ['admin', 'admin: keys, secrets, settings'],
            ]}
          />
          <Field
            label="Projects (optional)"
            hint="Project ids, separated by commas: the key sees only these. Empty: every project."
            value={projects}
            onChange={(e) => setProjects(e.target.value)}
          />
          <Field
            label="Expires in days (optional)"
            type="number"
            min={1}
            max={3650}
            value={days}
            onChange={(e) => setDays(e.target.value)}
          />
          <Field
            label="Requests per minute (optional)"
            hint="Lower than the plan's rate to hold this key back."
            type="number"
            min={1}
            value={rpm}
            onChange={(e) => setRpm(e.target.value)}
          />
        </div>
        <button type="submit" className="primary" disabled={action.busy}>
          Create key
        </button>
      </form>
      <ErrorNote error={action.error} />
    </section>
  );
};

export const KeysScreen = () => {
  useTitle('API keys');
  const session = useSignedIn();
  const list = usePaged<ApiKey>('/me/keys?limit=50');
  const revoke = useAction();
  const remove = async (k: ApiKey) => {
    if (!window.confirm(`Revoke ${k.name}? Clients using it stop at once.`)) return;
    revoke.setError(null);
    try {
      await api.delete(`/me/keys/${k.id}`);
      await list.reload();
    } catch (err) {
      revoke.setError(err as ApiError);
    }
  };
  return (
    <>
      <h1>API keys</h1>
      <p className="muted">
        A key reaches the same routes as this application, as <code>Authorization: Bearer service_…</code>.
      </p>
      {canAdmin(session) ? (
        <NewKey onCreated={() => void list.reload()} />
      ) : (
        <p className="muted">Only an admin or owner creates and revokes keys.</p>
      )}
      <h2>Keys</h2>
      <ErrorNote error={revoke.error} />
      <PagedView list={list} empty="No keys yet.">
        {(rows) => (
          <div className="table-wrap">
            <table className="stack">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Starts with</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Projects</th>
                  <th scope="col">Rate</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span className="visually-hidden">Revoke</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((k) => (
                  <tr key={k.id}>
                    <td data-label="Name">{k.name}</td>
                    <td data-label="Starts with">
                      <code>{k.prefix}…</code>
                    </td>
                    <td data-label="Scope">{k.scopes.join(', ')}</td>
                    <td data-label="Projects">{k.projects.length ? k.projects.join(', ') : 'all'}</td>
                    <td data-label="Rate">{k.rpm ? `${k.rpm}/min` : 'plan'}</td>
                    <td data-label="Expires">{k.expiresAt ? when(k.expiresAt) : 'never'}</td>
                    <td data-label="Last used">{when(k.lastUsedAt)}</td>
                    <td>
                      {canAdmin(session) && (
                        <button type="button" onClick={() => void remove(k)} aria-label={`Revoke ${k.name}`}>
                          Revoke
                        </button>
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
  );
};
