// What `engage projections status` and /health report of every read model generation.
import type pg from 'pg';
import type { EventStore } from '../eventstore/port.ts';
import { positionToString } from '../eventstore/port.ts';
import type { Projection } from './projection.ts';
import { STATE_COLUMNS, type StateRow, rowPosition } from './state.ts';

export interface ProjectionStatus {
  name: string;
  generation: number;
  version: number;
  active: boolean;
  status: 'running' | 'rebuilding' | 'failed';
  position: string;
  lag: number;
  error?: string;
  error_position?: string;
  /** the event that failed: type, stream and revision, id */
  error_event?: string;
}

/** Statuses of every projection generation; lag counts the committed events of its types not yet applied (also those an open transaction still holds back). */
export async function readStatuses(pool: pg.Pool, store: EventStore, projections: readonly Projection[] = []): Promise<ProjectionStatus[]> {
  const { rows } = await pool.query<StateRow>(`SELECT ${STATE_COLUMNS} FROM projection_state ORDER BY name, generation`);
  const typesOf = new Map(projections.map((p) => [p.name, p.types]));
  return Promise.all(
    rows.map(async (r) => toStatus(r, await store.countAfter(rowPosition(r), typesOf.get(r.name), 1_000_000, { includeHeldBack: true }))),
  );
}

function toStatus(r: StateRow, lag: number): ProjectionStatus {
  return {
    name: r.name,
    generation: r.generation,
    version: r.version,
    active: r.active,
    status: r.status as ProjectionStatus['status'],
    position: positionToString(rowPosition(r)),
    lag,
    ...(r.error ? { error: r.error, error_position: r.error_position ?? undefined, ...(r.error_event ? { error_event: r.error_event } : {}) } : {}),
  };
}
