// What a database error means for the caller: the connection is gone (outcome unknown; Postgres
// down or restarting), or the statement lost a race that a retry may win.

/** The connection went away, could not be made, or the server is shutting down or starting up. */
export function isConnectionError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: string; message?: string };
  if (code && (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03')) return true;
  if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'ETIMEDOUT' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH') return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended/i.test(message ?? '');
}

/** Serialization failure or deadlock: the transaction was rolled back and may simply run again. */
export function isRetryableConflict(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === '40001' || code === '40P01';
}

/** The statement named a table or view that does not exist (42P01). */
export function isUndefinedTable(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === '42P01';
}

/** Runs `run` (a whole transaction or one statement) again after a serialization failure or a deadlock, up to three times in all. */
export async function retryingConflicts<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (!isRetryableConflict(err) || attempt >= 3) throw err;
    }
  }
}

/**
 * Errors that say nothing about the statement itself: a lost race (40001, 40P01), a lock or
 * statement timeout (55P03, 57014), or a lost connection. The same work may well succeed later.
 */
export function isTransientError(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return isRetryableConflict(err) || code === '55P03' || code === '57014' || isConnectionError(err);
}
