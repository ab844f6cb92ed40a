// The signed-in session: the token from POST /v1/auth/login (kept in this tab's sessionStorage, gone
// with the tab), who it belongs to (GET /v1/account/me) and what its role may do. The role only decides
// which controls a page offers: the API checks every request itself, and refuses a viewer's writes.
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { apiClient, type EngageClient, must } from './api.ts';

type Me = Awaited<ReturnType<typeof loadMe>>;
export type Role = 'owner' | 'admin' | 'member' | 'viewer';
export type Capability = 'read' | 'write' | 'settings';

const ROLE_CAPABILITIES: Record<Role, Capability[]> = {
  owner: ['read', 'write', 'settings'],
  admin: ['read', 'write', 'settings'],
  member: ['read', 'write'],
  viewer: ['read'],
};

const TOKEN_KEY = 'engage.session';

interface Stored {
  token: string;
  expires_at: string;
}

function storedSession(): Stored | undefined {
  try {
    const raw = sessionStorage.getItem(TOKEN_KEY);
    if (!raw) return undefined;
    const stored = JSON.parse(raw) as Stored;
    return Date.parse(stored.expires_at) > Date.now() ? stored : undefined;
  } catch {
    return undefined;
  }
}

async function loadMe(client: EngageClient) {
  return must(client.GET('/v1/account/me'));
}

export interface Session {
  client: EngageClient;
  me: NonNullable<Me>;
  role: Role;
  can: (capability: Capability) => boolean;
  signOut: () => void;
}

interface SessionState {
  session?: Session;
  /** the client before sign-in (the login route needs no credential) */
  anonymous: EngageClient;
  /** true while a stored session is checked */
  restoring: boolean;
  signIn: (email: string, password: string) => Promise<void>;
  /** set when the service asked the dashboard to wait (503) and it is trying again */
  waiting: boolean;
  /** why the last session ended, shown on the sign-in form */
  ended?: string;
}

const SessionContext = createContext<SessionState | undefined>(undefined);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [stored, setStored] = useState<Stored | undefined>(storedSession);
  const [me, setMe] = useState<NonNullable<Me>>();
  const [restoring, setRestoring] = useState(stored !== undefined);
  const [waiting, setWaiting] = useState(false);
  const [ended, setEnded] = useState<string>();

  const signOut = useCallback((reason?: string) => {
    sessionStorage.removeItem(TOKEN_KEY);
    setStored(undefined);
    setMe(undefined);
    setEnded(reason);
  }, []);

  const client = useMemo(
    () => apiClient(stored?.token, { onWaiting: setWaiting, onSessionEnded: () => signOut('Your session has ended: sign in again.') }),
    [stored?.token, signOut],
  );
  const anonymous = useMemo(() => apiClient(undefined, { onWaiting: setWaiting }), []);

  useEffect(() => {
    if (!stored) return;
    let live = true;
    setRestoring(true);
    loadMe(client)
      .then((loaded) => live && setMe(loaded))
      .catch(() => live && signOut())
      .finally(() => live && setRestoring(false));
    return () => {
      live = false;
    };
  }, [stored, client, signOut]);

  const signIn = useCallback(
    async (email: string, password: string) => {
      const answer = await must(anonymous.POST('/v1/auth/login', { body: { email, password } }));
      const next = { token: answer.token, expires_at: answer.expires_at };
      sessionStorage.setItem(TOKEN_KEY, JSON.stringify(next));
      setEnded(undefined);
      setStored(next);
    },
    [anonymous],
  );

  const session = useMemo<Session | undefined>(() => {
    if (!stored || !me) return undefined;
    const role = (me.credential.type === 'session' ? me.credential.role : 'viewer') as Role;
    return { client, me, role, can: (c) => ROLE_CAPABILITIES[role].includes(c), signOut: () => signOut() };
  }, [stored, me, client, signOut]);

  const state = useMemo<SessionState>(
    () => ({ session, anonymous, restoring, signIn, waiting, ended }),
    [session, anonymous, restoring, signIn, waiting, ended],
  );
  return <SessionContext.Provider value={state}>{children}</SessionContext.Provider>;
}

export function useSessionState(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSessionState outside SessionProvider');
  return state;
}

/** The signed-in session (only under the signed-in layout). */
export function useSession(): Session {
  const { session } = useSessionState();
  if (!session) throw new Error('useSession without a session');
  return session;
}
