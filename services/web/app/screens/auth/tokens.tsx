// The screens an e-mail links to (GATEWAY_APP_URL/verify, /reset, /invite with ?token=), and
// the forgotten-password form. Each also takes the code typed by hand.
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api';
import { Link, navigate, useLocation, useTitle } from '../../router';
import { useSession, type SessionView } from '../../session';
import { Field } from '../../ui/fields';
import { Card } from '../../ui/layout';
import { useLoad } from '../../ui/load';
import { ErrorNote, Loading, useAction } from '../../ui/states';

export const Verify = () => {
  useTitle('Confirm your e-mail');
  const { query } = useLocation();
  const { refresh, session } = useSession();
  const [token, setToken] = useState(query.get('token') ?? '');
  const [done, setDone] = useState(false);
  const action = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await action.run(() => api.post('/auth/verify', { token: token.trim() }))) {
      setDone(true);
      await refresh();
    }
  };
  return (
    <Card title="Confirm your e-mail">
      {done ? (
        <p role="status">
          Your address is confirmed. <Link to={session ? '/' : '/signin'}>Continue</Link>
        </p>
      ) : (
        <form onSubmit={submit}>
          <Field label="Confirmation code" required value={token} onChange={(e) => setToken(e.target.value)} />
          <ErrorNote error={action.error} />
          <button type="submit" className="primary" disabled={action.busy}>
            Confirm
          </button>
        </form>
      )}
    </Card>
  );
};

export const Forgot = () => {
  useTitle('Reset your password');
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const action = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await action.run(() => api.post('/auth/forgot', { email }))) setSent(true);
  };
  return (
    <Card title="Reset your password">
      {sent ? (
        <p role="status">
          If an account uses that address, a reset code is on its way. <Link to="/reset">Enter the code</Link>
        </p>
      ) : (
        <form onSubmit={submit}>
          <Field label="E-mail" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          <ErrorNote error={action.error} />
          <button type="submit" className="primary" disabled={action.busy}>
            Send a reset code
          </button>
        </form>
      )}
    </Card>
  );
};

export const Reset = () => {
  useTitle('Choose a new password');
  const { query } = useLocation();
  const [token, setToken] = useState(query.get('token') ?? '');
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const action = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await action.run(() => api.post('/auth/reset', { token: token.trim(), password }))) setDone(true);
  };
  return (
    <Card title="Choose a new password">
      {done ? (
        <p role="status">
          Password changed; every session of the account ended. <Link to="/signin">Sign in</Link>
        </p>
      ) : (
        <form onSubmit={submit}>
          <Field label="Reset code" required value={token} onChange={(e) => setToken(e.target.value)} />
          <Field
            label="New password"
            type="password"
            autoComplete="new-password"
            minLength={10}
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          <ErrorNote error={action.error} />
          <button type="submit" className="primary" disabled={action.busy}>
            Set password
          </button>
        </form>
      )}
    </Card>
  );
};

interface InviteInfo {
  workspace: { name: string };
  email: string;
  role: string;
  expiresAt: string;
  accountExists: boolean;
}

export const AcceptInvite = () => {
  useTitle('Join a workspace');
  const { query } = useLocation();
  const { session, setSession } = useSession();
  const [token, setToken] = useState(query.get('token') ?? '');
  const info = useLoad<InviteInfo>(token.length >= 20 ? `/auth/invites/${encodeURIComponent(token)}` : null);
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const action = useAction();
  const accept = async (e: FormEvent) => {
    e.preventDefault();
    const body = {
      token,
      ...(session ? {} : { password }),
      ...(!session && !info.data?.accountExists && name.trim() ? { name: name.trim() } : {}),
    };
    const s = await action.run(() => api.post<SessionView>('/auth/invites/accept', body));
    if (s) {
      setSession(s);
      navigate('/');
    }
  };
  return (
    <Card title="Join a workspace">
      <Field label="Invitation code" value={token} onChange={(e) => setToken(e.target.value.trim())} />
      {info.loading && <Loading />}
      {info.error && <ErrorNote error={info.error} />}
      {info.data && (
        <form onSubmit={accept}>
          <p>
            <strong>{info.data.workspace.name}</strong> invites <strong>{info.data.email}</strong> as {info.data.role}.
          </p>
          {session ? (
            <p>You are signed in as {session.user.email}.</p>
          ) : (
            <>
              {!info.data.accountExists && (
                <Field label="Your name" value={name} onChange={(e) => setName(e.target.value)} />
              )}
              <Field
                label={info.data.accountExists ? 'Your password' : 'Choose a password'}
                type="password"
                autoComplete={info.data.accountExists ? 'current-password' : 'new-password'}
                required
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            </>
          )}
          <ErrorNote error={action.error as ApiError | null} />
          <button type="submit" className="primary" disabled={action.busy}>
            Join {info.data.workspace.name}
          </button>
        </form>
      )}
    </Card>
  );
};
