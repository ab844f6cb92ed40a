// What `engage projections status` and /health report of every read model generation: a running one
// with parked events (parked.ts) is `degraded`, and every answer counts them.
import type pg from 'pg';
import type { CountOptions, CountRequest, EventStore } from '../eventstore/port.ts';
import { positionToString } from '../eventstore/port.ts';
import type { Projection } from './projection.ts';
import { parkedCounts } from './parked.ts';
import { STATE_COLUMNS, type StateRow, rowPosition } from './state.ts';

export interface ProjectionStatus {
  name: string;
  generation: number;
  version: number;
  active: boolean;
  /** degraded: running, with events parked (applied past, not applied) */
  status: 'running' | 'degraded' | 'rebuilding' | 'failed';
  position: string;
  lag: number;
  /** events parked by this generation (`engage projections parked`) */
  parked: number;
  error?: string;
  error_position?: string;
  /** the event that failed: type, stream and revision, id */
  error_event?: string;
}

/** Statuses of every projection generation; lag counts the committed events of its types not yet applied (also those an open transaction still holds back). */
export async function readStatuses(pool: pg.Pool, store: EventStore, projections: readonly Projection[] = []): Promise<ProjectionStatus[]> {
  const [{ rows }, parked] = await Promise.all([
    pool.query<StateRow>(`SELECT ${STATE_COLUMNS} FROM projection_state ORDER BY name, generation`),
    parkedCounts(pool),
  ]);
  const typesOf = new Map(projections.map((p) => [p.name, p.types]));
  const readers = rows.map((r) => ({ after: rowPosition(r), types: typesOf.get(r.name) }));
  const lags = await countEach(store, readers, LAG_CAP, { includeHeldBack: true });
  return rows.map((r, i) => toStatus(r, lags[i], parked.get(`${r.name}:${r.generation}`) ?? 0));
}

/** A lag is counted up to this many events. */
const LAG_CAP = 1_000_000;

/** Each reader's countAfter: in one read of the log where the store can. */
function countEach(store: EventStore, readers: readonly CountRequest[], cap: number, options: CountOptions): Promise<number[]> {
  if (store.countsAfter) return store.countsAfter(readers, cap, options);
  return Promise.all(readers.map((r) => store.countAfter(r.after, r.types, cap, options)));
}

function toStatus(r: StateRow, lag: number, parked: number): ProjectionStatus {
  return {
    name: r.name,
    generation: r.generation,
    version: r.version,
    active: r.active,
    status: r.status === 'running' && parked > 0 ? 'degraded' : (r.status as ProjectionStatus['status']),
    position: positionToString(rowPosition(r)),
    lag,
    parked,
    ...(r.error ? { error: r.error, error_position: r.error_position ?? undefined, ...(r.error_event ? { error_event: r.error_event } : {}) } : {}),
  };
}
