// Loading and acting through the API from a page: every failure keeps the API's own error body, so
// the page shows the API's message (README "The dashboard").
import { type DependencyList, useCallback, useEffect, useRef, useState } from 'react';
import { type ApiError, ApiFailure, type EngageClient, errorOf } from './api.ts';
import { useSession } from './session.tsx';

export interface Loaded<T> {
  data?: T;
  error?: ApiError;
  loading: boolean;
  /** load again (after an action), keeping what is shown until the answer comes */
  reload: () => void;
}

const bodyOf = (err: unknown): ApiError => (err instanceof ApiFailure ? err.body : errorOf(err));

/** What `load` answers, loaded when a dependency changes; `everyMs` loads it again on a timer (progress). */
export function useLoad<T>(load: (client: EngageClient) => Promise<T>, deps: DependencyList, everyMs?: number): Loaded<T> {
  const { client } = useSession();
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    loadRef
      .current(client)
      .then((data) => live && setState({ data, loading: false }))
      .catch((err) => live && setState((s) => ({ data: s.data, error: bodyOf(err), loading: false })));
    return () => {
      live = false;
    };
  }, [client, round, ...deps]);
  useEffect(() => {
    if (!everyMs) return;
    const timer = setInterval(() => setRound((r) => r + 1), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}

export interface Action {
  /** runs `act`; a failure is kept in `error` (and the answer is undefined) */
  run: <T>(act: (client: EngageClient) => Promise<T>) => Promise<T | undefined>;
  pending: boolean;
  error?: ApiError;
  clear: () => void;
}

/** A write the user starts (a button, a form): pending while it runs, its failure as the API said it. */
export function useAction(): Action {
  const { client } = useSession();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ApiError>();
  const run = useCallback(
    async <T,>(act: (client: EngageClient) => Promise<T>): Promise<T | undefined> => {
      setPending(true);
      setError(undefined);
      try {
        return await act(client);
      } catch (err) {
        setError(bodyOf(err));
        return undefined;
      } finally {
        setPending(false);
      }
    },
    [client],
  );
  return { run, pending, error, clear: () => setError(undefined) };
}
