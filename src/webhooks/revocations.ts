// Endpoints deleted or disabled and replays cancelled, as the webhook outbox applies them in this
// process: the webhook sender checks them just before each request, so what it claimed earlier (and
// keeps waiting for a slot of its host) is not sent once the API has answered (README "Webhooks").
//
// Why in memory and not a query per delivery: the outbox cancels the pending deliveries in the same
// transaction (the durable truth, which every later claim sees); this only closes the gap of what
// was claimed before, at no cost on the sender's hot path. The write's API answer comes after the
// outbox's commit, which comes after the entry is made here, so a request decided after the answer
// sees it. Keys are endpoint and replay ids, unique across every service in the process.

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
