// The dashboard's one way to the API: the typed client (README "The typed client"), signed in with the
// session's token. Nothing here calls fetch by hand; the fetch given to the client only watches the
// answers, so a page can say when the service asked it to wait (a 503 while the database is away) and
// a session that expired sends the user back to the sign-in form.
import { createClient, type ApiError, type EngageClient, EngageError } from '@engage/client';

export type { ApiError, EngageClient };
export type { components } from '@engage/client';

export interface ClientEvents {
  /** a 401 on a request that carried the session: it expired or its user was removed */
  onSessionEnded?: () => void;
  /** the service answered 503 and the client waits to try again (true), or an answer came (false) */
  onWaiting?: (waiting: boolean) => void;
}

/** A client for this origin's API, with the session's token when there is one. */
export function apiClient(token: string | undefined, events: ClientEvents = {}): EngageClient {
  const watching: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    if (response.status === 503) events.onWaiting?.(true);
    else events.onWaiting?.(false);
    if (response.status === 401 && token) events.onSessionEnded?.();
    return response;
  };
  return createClient({ baseUrl: window.location.origin, ...(token ? { token } : {}), fetch: watching, maxRetries: 5 });
}

/** The API's error body, from a failed answer or a failed page (or a network failure, said in the same shape). */
export function errorOf(error: unknown, response?: Response): ApiError {
  if (error && typeof error === 'object' && 'message' in error && typeof (error as ApiError).message === 'string') {
    const e = error as ApiError;
    return { ...e, error: e.error ?? 'error' };
  }
  // a failed page of the client's paginate
  if (error instanceof EngageError) return error.body;
  if (error instanceof Error) return { error: 'network', message: `The service could not be reached: ${error.message}` };
  return { error: 'unknown', message: response ? `The service answered ${response.status}` : 'Something went wrong' };
}

/** Thrown by `must`: a failed answer, with the API's error body. */
export class ApiFailure extends Error {
  constructor(readonly body: ApiError, readonly status: number) {
    super(body.message);
  }
}

/** The data of a call that must succeed; a failure throws an ApiFailure carrying the API's message. */
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let answer: { data?: T; error?: unknown; response: Response };
  try {
    answer = await call;
  } catch (err) {
    throw new ApiFailure(errorOf(err), 0);
  }
  if (answer.error !== undefined || !answer.response.ok) throw new ApiFailure(errorOf(answer.error, answer.response), answer.response.status);
  return answer.data as T;
}
