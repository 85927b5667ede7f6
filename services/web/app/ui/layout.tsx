import { useState, type ReactNode } from 'react';
import { api, ApiError } from '../api';
import { Link, navigate, useLocation } from '../router';
import { useSignedIn, useSession, type SessionView } from '../session';
import { ErrorNote } from './states';

const NAV = [
  ['/', 'Projects'],
  ['/scrape', 'Scrape'],
  ['/crawl', 'Crawl'],
  ['/webhooks', 'Webhooks'],
  ['/notifications', 'Notifications'],
  ['/usage', 'Usage'],
  ['/monitor', 'Monitor'],
  ['/keys', 'Keys'],
  ['/members', 'Members'],
  ['/account', 'Account'],
] as const;

const WorkspaceSwitcher = ({ session }: { session: SessionView }) => {
  const { setSession } = useSession();
  const [error, setError] = useState<ApiError | null>(null);
  if (session.workspaces.length < 2) return <span className="workspace-name">{session.workspace.name}</span>;
  const change = async (id: string) => {
    try {
      setSession(await api.post<SessionView>('/auth/switch', { workspace_id: id }));
      navigate('/');
    } catch (err) {
      setError(err as ApiError);
    }
  };
  return (
    <>
      <label className="workspace-switch">
        <span className="visually-hidden">Workspace</span>
        <select value={session.workspace.id} onChange={(e) => void change(e.target.value)}>
          {session.workspaces.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name} ({w.role})
            </option>
          ))}
        </select>
      </label>
      <ErrorNote error={error} />
    </>
  );
};

/** Asks for the e-mail code while the address is unconfirmed (write actions answer email_unverified). */
const VerifyBanner = () => {
  const { refresh } = useSession();
  const [code, setCode] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const confirm = async () => {
    try {
      await api.post('/auth/verify', { token: code.trim() });
      await refresh();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  const resend = async () => {
    const res = await api.post<{ sent: boolean }>('/auth/verify/request');
    setNote(res.sent ? 'A new code is on its way.' : 'No mail host is configured.');
  };
  return (
    <section className="banner" aria-label="Confirm your e-mail">
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void confirm();
        }}
      >
        <span>Confirm your e-mail address to make changes: enter the code we sent.</span>
        <label>
          Confirmation code{' '}
          <input value={code} onChange={(e) => setCode(e.target.value)} autoComplete="one-time-code" />
        </label>
        <button type="submit">Confirm</button>
        <button type="button" onClick={() => void resend()}>
          Send a new code
        </button>
        {note && <span role="status">{note}</span>}
      </form>
      <ErrorNote error={error} />
    </section>
  );
};

export const Layout = ({ children }: { children: ReactNode }) => {
  const session = useSignedIn();
  const { setSession } = useSession();
  const { path } = useLocation();
  const [open, setOpen] = useState(false);
  const signOut = async () => {
    await api.post('/auth/logout').catch(() => undefined);
    setSession(null);
    navigate('/signin');
  };
  const active = (to: string) => (to === '/' ? path === '/' || path.startsWith('/projects') : path.startsWith(to));
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link to="/" className="brand">
          Tidemark
        </Link>
        <WorkspaceSwitcher session={session} />
        <button
          type="button"
          className="menu-toggle"
          aria-expanded={open}
          aria-controls="main-nav"
          onClick={() => setOpen(!open)}
        >
          Menu
        </button>
        <nav id="main-nav" aria-label="Main" className={open ? 'open' : ''}>
          <ul>
            {NAV.map(([to, label]) => (
              <li key={to}>
                <Link to={to} aria-current={active(to) ? 'page' : undefined} onClick={() => setOpen(false)}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span>{session.user.email}</span>
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      {!session.user.emailVerified && <VerifyBanner />}
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
};

/** The signed-out screens' frame: no navigation, one card. */
export const Card = ({ title, children }: { title: string; children: ReactNode }) => (
  <main id="main" className="card-page">
    <div className="card">
      <p className="brand">Tidemark</p>
      <h1>{title}</h1>
      {children}
    </div>
  </main>
);
