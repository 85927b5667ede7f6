import { useState, type FormEvent } from 'react';
import { api } from '../../api';
import { Link, navigate, useTitle } from '../../router';
import { useSession, type SessionView } from '../../session';
import { Field } from '../../ui/fields';
import { Card } from '../../ui/layout';
import { ErrorNote, useAction } from '../../ui/states';

export const SignIn = () => {
  useTitle('Sign in');
  const { setSession } = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const s = await action.run(() => api.post<SessionView>('/auth/login', { email, password }));
    if (s) {
      setSession(s);
      navigate('/', { replace: true });
    }
  };
  return (
    <Card title="Sign in">
      <form onSubmit={submit}>
        <Field
          label="E-mail"
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <ErrorNote error={action.error} />
        <button type="submit" className="primary" disabled={action.busy}>
          Sign in
        </button>
      </form>
      <p>
        New here? <Link to="/signup">Create an account</Link> · <Link to="/forgot">Forgot your password?</Link>
      </p>
    </Card>
  );
};

export const SignUp = () => {
  useTitle('Create an account');
  const { setSession } = useSession();
  const [form, setForm] = useState({ name: '', email: '', password: '', workspace: '' });
  const [mailedTo, setMailedTo] = useState<string | null>(null);
  const action = useAction();
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body = {
      email: form.email,
      password: form.password,
      ...(form.name.trim() ? { name: form.name.trim() } : {}),
      ...(form.workspace.trim() ? { workspace: form.workspace.trim() } : {}),
    };
    // With a mail host the answer is 202 {accepted}: the address is confirmed by the mailed code
    // before anyone signs in. Without one it is the session, signed in at once.
    const s = await action.run(() => api.post<SessionView | { accepted: true }>('/auth/signup', body));
    if (s && 'user' in s) {
      setSession(s);
      navigate('/', { replace: true });
    } else if (s) setMailedTo(form.email);
  };
  if (mailedTo)
    return (
      <Card title="Check your e-mail">
        <p role="status">
          We sent a confirmation code to <strong>{mailedTo}</strong>. Follow the link in the message, or{' '}
          <Link to="/verify">enter the code</Link>; then sign in.
        </p>
      </Card>
    );
  return (
    <Card title="Create an account">
      <form onSubmit={submit}>
        <Field label="Your name" autoComplete="name" value={form.name} onChange={set('name')} />
        <Field label="E-mail" type="email" autoComplete="email" required value={form.email} onChange={set('email')} />
        <Field
          label="Password"
          type="password"
          autoComplete="new-password"
          required
          minLength={10}
          hint="At least 10 characters."
          value={form.password}
          onChange={set('password')}
        />
        <Field
          label="Workspace name"
          hint="You can rename it later."
          value={form.workspace}
          onChange={set('workspace')}
        />
        <ErrorNote error={action.error} />
        <button type="submit" className="primary" disabled={action.busy}>
          Create account
        </button>
      </form>
      <p>
        Have an account? <Link to="/signin">Sign in</Link>
      </p>
    </Card>
  );
};

/** A session with two-factor on that has not shown a code yet: only this screen answers. */
export const SecondFactor = () => {
  useTitle('Two-factor code');
  const { refresh, setSession } = useSession();
  const [code, setCode] = useState('');
  const action = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await action.run(() => api.post('/auth/2fa/verify', { code: code.trim() }))) await refresh();
  };
  const signOut = async () => {
    await api.post('/auth/logout').catch(() => undefined);
    setSession(null);
  };
  return (
    <Card title="Two-factor code">
      <form onSubmit={submit}>
        <Field
          label="Code from your authenticator app"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          required
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <ErrorNote error={action.error} />
        <button type="submit" className="primary" disabled={action.busy}>
          Continue
        </button>
      </form>
      <p>
        <button type="button" className="link" onClick={() => void signOut()}>
          Sign out
        </button>
      </p>
    </Card>
  );
};
