// The member's own account: name, password, the second factor (set up with an authenticator
// app, turned off with a code) and where they are signed in.
import { useState, type FormEvent } from 'react';
import { api } from '../../api';
import { useTitle } from '../../router';
import { useSession, useSignedIn } from '../../session';
import { when } from '../../ui/format';
import { Field } from '../../ui/fields';
import { useLoad } from '../../ui/load';
import { ErrorNote, Loading, useAction } from '../../ui/states';
import { CopyButton } from '../../ui/widgets';

interface SignedInSession {
  id: string;
  current: boolean;
  createdAt: string;
  lastSeenAt?: string | null;
  userAgent?: string | null;
}

const Profile = () => {
  const session = useSignedIn();
  const { refresh } = useSession();
  const [name, setName] = useState(session.user.name ?? '');
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    if ((await action.run(() => api.patch('/auth/profile', { name: name.trim() || null }))) !== undefined) {
      setSaved(true);
      await refresh();
    }
  };
  return (
    <form onSubmit={save} aria-labelledby="profile">
      <h2 id="profile">Profile</h2>
      <p>Signed in as {session.user.email}.</p>
      <Field label="Your name" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} />
      <button type="submit" disabled={action.busy}>
        Save the name
      </button>
      {saved && <span role="status"> Saved.</span>}
      <ErrorNote error={action.error} />
    </form>
  );
};

const Password = () => {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const action = useAction();
  const change = async (e: FormEvent) => {
    e.preventDefault();
    setDone(false);
    if ((await action.run(() => api.post('/auth/password', { current, password: next }))) !== undefined) {
      setDone(true);
      setCurrent('');
      setNext('');
    }
  };
  return (
    <form onSubmit={change} aria-labelledby="password">
      <h2 id="password">Password</h2>
      <Field
        label="Current password"
        type="password"
        autoComplete="current-password"
        required
        value={current}
        onChange={(e) => setCurrent(e.target.value)}
      />
      <Field
        label="New password"
        hint="10 to 200 characters."
        type="password"
        autoComplete="new-password"
        minLength={10}
        required
        value={next}
        onChange={(e) => setNext(e.target.value)}
      />
      <button type="submit" disabled={action.busy}>
        Change the password
      </button>
      {done && <span role="status"> Password changed.</span>}
      <ErrorNote error={action.error} />
    </form>
  );
};

const SecondFactorSettings = () => {
  const session = useSignedIn();
  const { refresh } = useSession();
  const [setup, setSetup] = useState<{ secret: string; otpauthUrl: string } | null>(null);
  const [code, setCode] = useState('');
  const action = useAction();
  const begin = async () => {
    const s = await action.run(() => api.post<{ secret: string; otpauthUrl: string }>('/auth/2fa/setup'));
    if (s) setSetup(s);
  };
  const confirm = async (e: FormEvent) => {
    e.preventDefault();
    const path = session.mfa.enabled ? '/auth/2fa/disable' : '/auth/2fa/verify';
    if ((await action.run(() => api.post(path, { code: code.trim() }))) !== undefined) {
      setSetup(null);
      setCode('');
      await refresh();
    }
  };
  const codeField = (
    <Field
      label="Code from your authenticator app"
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="[0-9]{6}"
      required
      value={code}
      onChange={(e) => setCode(e.target.value)}
    />
  );
  return (
    <section aria-labelledby="second-factor">
      <h2 id="second-factor">Two-factor sign-in</h2>
      {session.mfa.enabled ? (
        <form onSubmit={confirm}>
          <p>On: signing in asks for a code from your authenticator app.</p>
          {codeField}
          <button type="submit" disabled={action.busy}>
            Turn it off
          </button>
        </form>
      ) : setup ? (
        <form onSubmit={confirm}>
          <p>Add this key to your authenticator app (or open the link on your phone), then enter the code it shows.</p>
          <p>
            <code aria-label="Authenticator key">{setup.secret}</code>{' '}
            <CopyButton text={setup.secret} label="Copy the key" />
          </p>
          <p>
            <a href={setup.otpauthUrl}>Open in an authenticator app</a>
          </p>
          {codeField}
          <button type="submit" className="primary" disabled={action.busy}>
            Turn on two-factor sign-in
          </button>
        </form>
      ) : (
        <>
          <p>Off.{session.mfa.required ? ' This workspace requires it: set it up to keep working here.' : ''}</p>
          <button type="button" onClick={() => void begin()} disabled={action.busy}>
            Set up two-factor sign-in
          </button>
        </>
      )}
      <ErrorNote error={action.error} />
    </section>
  );
};

const Sessions = () => {
  const list = useLoad<{ data: SignedInSession[] }>('/auth/sessions');
  const action = useAction();
  const signOutOthers = async () => {
    if ((await action.run(() => api.delete('/auth/sessions'))) !== undefined) await list.reload();
  };
  return (
    <section aria-labelledby="sessions">
      <h2 id="sessions">Where you are signed in</h2>
      {list.error && <ErrorNote error={list.error} />}
      {!list.data ? (
        !list.error && <Loading />
      ) : (
        <ul>
          {list.data.data.map((s) => (
            <li key={s.id}>
              {s.userAgent ?? 'a browser'} · since {when(s.createdAt)}
              {s.current ? ' (this one)' : ''}
            </li>
          ))}
        </ul>
      )}
      <button type="button" onClick={() => void signOutOthers()} disabled={action.busy}>
        Sign out everywhere else
      </button>
      <ErrorNote error={action.error} />
    </section>
  );
};

export const AccountScreen = () => {
  useTitle('Account');
  return (
    <>
      <h1>Your account</h1>
      <div className="grid-2">
        <Profile />
        <Password />
      </div>
      <SecondFactorSettings />
      <Sessions />
    </>
  );
};
