// A read model held back behind the log: a transaction locks one table of its live generation in
// SHARE mode, so the read model's writes to it wait while every read goes on. How the tests prove a
// callback that reads a read model waits for it to catch up rather than answering from stale rows.
import type pg from 'pg';
import type { Projection } from '../../src/read-models/projection.ts';
import { requestRebuild } from '../../src/read-models/generations.ts';
import { GENERATION_LOCK_NAMESPACE } from '../../src/read-models/state.ts';
import { eventually } from './waits.ts';

export interface HeldReadModel {
  /** resolves once a write to the table waits for the lock (the read model is now behind the log) */
  writerWaiting(): Promise<void>;
  /** lets the read model go on (once; later calls do nothing) and gives the connection back */
  release(): Promise<void>;
}

/**
 * A connection holding what `hold` takes in its transaction (begun before `hold` runs) until `release`
 * commits it (once; later calls do nothing) and gives the connection back. A `hold` that fails
 * releases at once.
 */
async function heldTransaction<T>(db: pg.Pool, hold: (holder: pg.PoolClient) => Promise<T>): Promise<{ held: T; release(): Promise<void> }> {
  const holder = await db.connect();
  let open = true;
  const release = async () => {
    if (!open) return;
    open = false;
    try {
      await holder.query('COMMIT');
    } finally {
      holder.release();
    }
  };
  try {
    await holder.query('BEGIN');
    return { held: await hold(holder), release };
  } catch (err) {
    await release().catch(() => undefined);
    throw err;
  }
}

/** The name of `table` (without the generation suffix) in `readModel`'s live generation. */
export async function liveTable(db: Pick<pg.Pool, 'query'>, readModel: string, table: string): Promise<string> {
  const { rows } = await db.query<{ name: string }>(`SELECT $2 || '_g' || generation AS name FROM projection_state WHERE name = $1 AND active`, [readModel, table]);
  return rows[0]!.name;
}

/** Locks `table` (its name without the generation suffix) of `readModel`'s live generation. */
export async function holdReadModelTable(db: pg.Pool, readModel: string, table: string): Promise<HeldReadModel> {
  const { release } = await heldTransaction(db, async (holder) => {
    await holder.query(`LOCK TABLE ${await liveTable(holder, readModel, table)} IN SHARE MODE`);
  });
  return {
    release,
    async writerWaiting() {
      await eventually(`the ${readModel} read model waiting for the lock`, async () => {
        const { rows } = await db.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE $1`, [`%${table}%`]);
        return rows.length > 0 ? true : undefined;
      }, 30_000);
    },
  };
}

/**
 * A rebuild held mid-way: the lock the runner takes for each batch of a generation is taken first for
 * the next generation of `projection`, then its rebuild is requested. The new generation stays
 * rebuilding (behind the log) until `release`.
 */
export async function holdRebuild(db: pg.Pool, projection: Projection): Promise<{ generation: number; release(): Promise<void> }> {
  const { held: generation, release } = await heldTransaction(db, async (holder) => {
    const { rows } = await holder.query<{ g: number }>('SELECT max(generation)::int AS g FROM projection_state WHERE name = $1', [projection.name]);
    const next = rows[0]!.g + 1;
    await holder.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [GENERATION_LOCK_NAMESPACE, `${projection.name}:${next}`]);
    const made = await requestRebuild(db, projection);
    if (made !== next) throw new Error(`${projection.name}: the rebuild made generation ${made}, not the one held (${next})`);
    return made;
  });
  return { generation, release };
}
