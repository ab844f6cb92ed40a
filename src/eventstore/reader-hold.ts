// Why catch-up readers may be standing still: on Postgres they read only below the cluster's oldest
// running transaction id, so one long transaction anywhere on the cluster (even in another database)
// holds every reader back. This names it for /health and `engage projections status`.
import type { EventStore, OpenTransaction } from './port.ts';

/** Transactions younger than this are ordinary writes in flight, not worth naming. */
const NOTEWORTHY_MS = 1_000;

export interface ReaderHold {
  held_back_by: OpenTransaction;
  /** set once it has held readers back past the threshold (or for an unknown time while events wait) */
  warning?: string;
}

export async function readerHold(store: EventStore, warnAfterMs: number): Promise<ReaderHold | undefined> {
  if (!store.oldestOpenTransaction) return undefined;
  const oldest = await store.oldestOpenTransaction();
  if (!oldest) return undefined;
  if (oldest.age_ms !== null && oldest.age_ms < NOTEWORTHY_MS) return undefined;
  if (oldest.age_ms === null && (await store.countAfter(await store.headPosition(), undefined, 1, { includeHeldBack: true })) === 0) return undefined;
  if (oldest.age_ms !== null && oldest.age_ms < warnAfterMs) return { held_back_by: oldest };
  const who = oldest.prepared_gid
    ? `prepared transaction '${oldest.prepared_gid}' in database ${oldest.database}`
    : `pid ${oldest.pid} (${oldest.application || 'unnamed application'}, database ${oldest.database ?? 'unknown'}, ${oldest.state ?? 'state unknown'})`;
  const age = oldest.age_ms === null ? 'for an unknown time' : `for ${Math.round(oldest.age_ms / 1000)} s`;
  return {
    held_back_by: oldest,
    warning: `read models and webhooks are held back: ${who} has kept a transaction open ${age}; nothing committed after it began is readable until it ends (README: Operations, "Readers held back")`,
  };
}

export function describeHold(hold: ReaderHold): string {
  const t = hold.held_back_by;
  const who = t.prepared_gid ? `prepared transaction ${t.prepared_gid}` : `pid ${t.pid}`;
  const age = t.age_ms === null ? 'age unknown' : `open ${(t.age_ms / 1000).toFixed(1)} s`;
  return `oldest open transaction: ${who}, ${age}, application ${t.application ?? '?'}, database ${t.database ?? '?'}, state ${t.state ?? '?'}, xid ${t.xid}`;
}
