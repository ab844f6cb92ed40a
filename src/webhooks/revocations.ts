// Endpoints deleted or disabled and replays cancelled, as this process learns them: from the API's
// write (at once, and announced to other processes' senders), from the webhook outbox's apply, and
// from another process's announcement. The webhook sender checks them just before each request, so
// what it claimed earlier (and keeps waiting for a slot of its host) is not sent once the API has
// answered (README "Webhooks").
//
// Why in memory and not a query per delivery: the outbox cancels the pending deliveries in the same
// transaction (the durable truth), and claims read the change from the log; this only closes the
// gap of what was claimed before, at no cost on the sender's hot path. A request decided after the
// answer sees the entry: the API's process makes it before answering; the outbox's process makes it
// before the commit the answer waits for; another process gets the announcement, sent once the
// write is stored and before the write waits for the outbox. Keys are endpoint and replay ids,
// unique across every service in the process.
import type pg from 'pg';

/** The channel a revocation is announced on (its payload: the endpoint's or replay's id). */
export const REVOCATION_CHANNEL = 'engage_webhook_revocations';

/** id → Date.now() when it was revoked */
const revoked = new Map<string, number>();
/** Entries older than this are dropped: no lease lasts that long. */
const KEEP_MS = 24 * 60 * 60 * 1000;

/** Records that nothing claimed before now may be sent to these endpoints or for these replays. */
export function revokeDeliveries(ids: readonly string[]): void {
  const now = Date.now();
  if (revoked.size > 1000) for (const [id, at] of revoked) if (at < now - KEEP_MS) revoked.delete(id);
  for (const id of ids) revoked.set(id, now);
}

/** Whether any of `ids` (a delivery's endpoint and replay) was revoked at or after `claimedAt` (Date.now() when its claim began). */
export function revokedSince(ids: readonly (string | null)[], claimedAt: number): boolean {
  for (const id of ids) {
    if (id === null) continue;
    const at = revoked.get(id);
    if (at !== undefined && at >= claimedAt) return true;
  }
  return false;
}

/**
 * After a write that revokes `id` is stored: this process's senders know at once, other processes'
 * once the announcement reaches them (a lost one leaves them the log, read at their next claim).
 */
export async function announceRevocation(db: Pick<pg.Pool, 'query'>, id: string): Promise<void> {
  revokeDeliveries([id]);
  await db.query('SELECT pg_notify($1, $2)', [REVOCATION_CHANNEL, id]).catch(() => undefined);
}
