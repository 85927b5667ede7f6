// Who is signed in: GET /v1/auth/session once, again after sign-in, switch or a 401.
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { api, ApiError, onUnauthorized } from './api';

export type Role = 'owner' | 'admin' | 'member' | 'viewer';

export interface SessionView {
  user: { id: string; email: string; name: string | null; emailVerified: boolean; createdAt: string };
  workspace: { id: string; name: string; plan: string };
  role: Role;
  workspaces: { id: string; name: string; role: Role }[];
  session: { id: string; createdAt: string; expiresAt: string };
  mfa: { enabled: boolean; verifiedAt: string | null; required: boolean };
}

interface SessionState {
  /** undefined while the first answer is awaited; null when signed out. */
  session: SessionView | null | undefined;
  /** A transport failure on the first read (the API is down), shown instead of the sign-in form. */
  error: ApiError | null;
  setSession(s: SessionView | null): void;
  refresh(): Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export const SessionProvider = ({ children }: { children: ReactNode }) => {
  const [session, setSession] = useState<SessionView | null | undefined>(undefined);
  const [error, setError] = useState<ApiError | null>(null);
  const refresh = useCallback(async () => {
    try {
      setSession(await api.get<SessionView>('/auth/session'));
      setError(null);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setSession(null);
      else setError(err as ApiError);
    }
  }, []);
  useEffect(() => {
    void refresh();
    return onUnauthorized(() => setSession(null));
  }, [refresh]);
  return <SessionContext.Provider value={{ session, error, setSession, refresh }}>{children}</SessionContext.Provider>;
};

export const useSession = (): SessionState => {
  const ctx = useContext(SessionContext);
  if (!ctx) throw new Error('useSession outside SessionProvider');
  return ctx;
};

/** The signed-in session; screens behind the sign-in gate only. */
export const useSignedIn = (): SessionView => {
  const { session } = useSession();
  if (!session) throw new Error('not signed in');
  return session;
};

export const canWrite = (s: SessionView) => s.user.emailVerified && s.role !== 'viewer';
export const canAdmin = (s: SessionView) => s.user.emailVerified && (s.role === 'admin' || s.role === 'owner');
