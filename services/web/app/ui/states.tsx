import { useState, type FormEvent, type ReactNode } from 'react';
import { api, ApiError } from '../api';

export const Loading = ({ what = 'Loading' }: { what?: string }) => (
  <p className="loading" role="status" aria-live="polite">
    {what}…
  </p>
);

export const Empty = ({ children }: { children: ReactNode }) => <p className="empty">{children}</p>;

/** A short form for the six digits, when an action asks for a fresh second factor (mfa_stale). */
const FreshCode = () => {
  const [code, setCode] = useState('');
  const [done, setDone] = useState(false);
  const [err, setErr] = useState<ApiError | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await api.post('/auth/2fa/verify', { code });
      setDone(true);
    } catch (x) {
      setErr(x as ApiError);
    }
  };
  if (done) return <p>Code accepted: try again now.</p>;
  return (
    <form onSubmit={submit} className="inline">
      <label>
        Authenticator code <input value={code} onChange={(e) => setCode(e.target.value)} inputMode="numeric" />
      </label>
      <button type="submit">Confirm</button>
      {err && <span className="error-text">{err.message}</span>}
    </form>
  );
};

/** An error answer as the API gave it: what happened, the fields at fault and the request id to quote. */
export const ErrorNote = ({ error }: { error: ApiError | Error | null | undefined }) => {
  if (!error) return null;
  const api = error instanceof ApiError ? error : null;
  // The fields at fault, unless the message already says all of it (one field).
  const fields = (api?.details?.fields ?? []).filter((f) => !error.message.includes(f.message));
  return (
    <div className="error" role="alert">
      <p>
        <strong>{error.message}</strong>
        {api && api.code !== 'internal' && <span className="code"> ({api.code})</span>}
      </p>
      {fields.length > 0 && (
        <ul>
          {fields.map((f) => (
            <li key={f.field}>
              <code>{f.field}</code>: {f.message}
            </li>
          ))}
        </ul>
      )}
      {api?.code === 'mfa_stale' && <FreshCode />}
      {api?.requestId && (
        <p className="request-id">
          Request id: <code>{api.requestId}</code>
        </p>
      )}
    </div>
  );
};

/** Runs one API action at a time and keeps its error. */
export const useAction = () => {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'internal', String(err), null));
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, setError };
};
