// Generations of a read model: each is a set of tables built by one version of its code; views of
// the base names point at the active one. A new version (or a requested rebuild) builds a new
// generation beside the live one, which the runner swaps in once it has caught up (blue/green).
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { retryingConflicts } from '../db/errors.ts';
import { withTransaction } from '../db/pool.ts';
import type { Position } from '../eventstore/port.ts';
import { type Projection, tableNamer } from './projection.ts';
import { type StateRow, lockGenerations, lockProjection, readState } from './state.ts';

/**
 * Makes sure the read model exists and a generation of this code's version is live or being built:
 * - none yet: the first generation, active at once;
 * - the live one has an older version: a rebuild with this version — replacing a rebuild of an older
 *   version still in flight (it would swap in code that is already outdated);
 * - the live one (or a rebuild in flight) has a newer version: this process runs older code and
 *   leaves everything as it is (its runner works only on generations of its own version).
 */
export async function ensureProjection(pool: pg.Pool, p: Projection): Promise<void> {
  // a start beside running processes may still meet their locks (a rebuild's swap, an upgrade that
  // is due): a deadlock is tried again, not the end of the start
  await retryingConflicts(() => withTransaction(pool, async (client) => {
    await lockProjection(client, p.name);
    const rows = await readState(client, p.name);
    if (rows.length === 0) {
      await createGeneration(client, p, 1, true);
      await replaceViews(client, p, 1);
      return;
    }
    const active = rows.find((r) => r.active);
    const building = rows.filter((r) => !r.active);
    if (!active || active.version >= p.version) {
      // stale rebuilds of versions older than the live one can never swap in
      for (const r of building.filter((b) => active && b.version < active.version)) await removeGeneration(client, p, r);
      // the upgrade runs once per generation and upgrade: its DDL (an ADD COLUMN IF NOT EXISTS too)
      // and the views made again lock the tables and views every process reads, and a start beside
      // running processes deadlocked with their readers (README "The event log and the read models")
      const upgrade = active && active.version === p.version ? upgradeOf(p, active.generation) : undefined;
      if (active && upgrade && active.upgraded !== upgrade.mark) {
        await client.query(upgrade.ddl);
        // a view lists the columns its table had when it was made
        await replaceViews(client, p, active.generation);
        await client.query('UPDATE projection_state SET upgraded = $3 WHERE name = $1 AND generation = $2', [p.name, active.generation, upgrade.mark]);
      }
      return;
    }
    if (p.rebuildable === false) {
      throw new Error(`projection ${p.name} changed version (${active.version} → ${p.version}) but cannot be rebuilt: it needs a migration`);
    }
    if (building.some((r) => r.version >= p.version)) return;
    await lockGenerations(client, p.name, building.map((r) => r.generation));
    for (const r of building) await removeGeneration(client, p, r);
    await createGeneration(client, p, Math.max(...rows.map((r) => r.generation)) + 1, false);
  }));
}

/** Starts a blue/green rebuild of a projection: a new generation replays from the start. */
export async function requestRebuild(pool: pg.Pool, p: Projection): Promise<number> {
  if (p.rebuildable === false) throw new Error(`${p.name} cannot be rebuilt: replaying it would repeat its effects (e.g. deliver webhooks again)`);
  return withTransaction(pool, async (client) => {
    await lockProjection(client, p.name);
    const rows = await readState(client, p.name);
    const newer = rows.find((r) => r.version > p.version);
    if (newer) throw new Error(`${p.name}: generation ${newer.generation} is version ${newer.version}, newer than this code's ${p.version}; rebuild with the newer code`);
    // wait for a runner's batch on the generations we drop (it holds that generation's lock)
    const building = rows.filter((r) => !r.active);
    await lockGenerations(client, p.name, building.map((r) => r.generation));
    for (const r of building) await removeGeneration(client, p, r);
    const generation = Math.max(0, ...rows.map((r) => r.generation)) + 1;
    await createGeneration(client, p, generation, false);
    return generation;
  });
}

/** Points the base-name views at a generation's tables. */
export async function replaceViews(client: pg.PoolClient, p: Projection, generation: number): Promise<void> {
  const t = tableNamer(generation);
  for (const base of p.tables) {
    await client.query(`DROP VIEW IF EXISTS ${base}`);
    await client.query(`CREATE VIEW ${base} AS SELECT * FROM ${t(base)}`);
  }
  for (const [name, select] of Object.entries(p.views ?? {})) {
    await client.query(`DROP VIEW IF EXISTS ${name}`);
    await client.query(`CREATE VIEW ${name} AS ${select(t)}`);
  }
}

/** Drops a generation's own tables (as recorded when it was made, whatever today's code lists), its state row and its parked events. */
export async function removeGeneration(client: pg.PoolClient, p: Projection, row: Pick<StateRow, 'generation' | 'tables'>): Promise<void> {
  const t = tableNamer(row.generation);
  for (const base of row.tables ?? p.tables) await client.query(`DROP TABLE IF EXISTS ${t(base)} CASCADE`);
  await client.query('DELETE FROM projection_state WHERE name = $1 AND generation = $2', [p.name, row.generation]);
  await client.query('DELETE FROM parked_events WHERE name = $1 AND generation = $2', [p.name, row.generation]);
}

async function createGeneration(client: pg.PoolClient, p: Projection, generation: number, active: boolean): Promise<void> {
  const t = tableNamer(generation);
  for (const base of p.tables) await client.query(`DROP TABLE IF EXISTS ${t(base)} CASCADE`);
  await client.query(p.schema(t));
  // a new generation starts with nothing parked; it parks again what still fails
  await client.query('DELETE FROM parked_events WHERE name = $1 AND generation = $2', [p.name, generation]);
  // made by today's schema: at today's upgrade already
  await client.query(
    `INSERT INTO projection_state (name, generation, active, version, status, tables, upgraded) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [p.name, generation, active, p.version, active ? 'running' : 'rebuilding', p.tables, upgradeOf(p, generation)?.mark ?? null],
  );
}

/** A projection's upgrade DDL for a generation, and its mark (a hash of the DDL: new DDL, a new mark). */
function upgradeOf(p: Projection, generation: number): { ddl: string; mark: string } | undefined {
  if (!p.upgrade) return undefined;
  const ddl = p.upgrade(tableNamer(generation));
  return { ddl, mark: createHash('sha256').update(ddl).digest('hex') };
}

/** Moves a projection's checkpoint back (for `engage replay`): re-applies events after `from` (parked ones too: parked again if they still fail). */
export async function resetCheckpoint(pool: pg.Pool, name: string, from: Position): Promise<void> {
  // one statement: the parked events it will meet again go with the checkpoint's move, or neither
  await pool.query(
    `WITH unparked AS (
       DELETE FROM parked_events WHERE name = $1 AND (commit_pos, prepare_pos) > ($2::text::xid8, $3::bigint)
     )
     UPDATE projection_state SET commit_pos = $2::text::xid8, prepare_pos = $3, status = CASE WHEN active THEN 'running' ELSE status END,
       error = NULL, error_position = NULL, error_event = NULL, updated_at = now() WHERE name = $1`,
    [name, from.commit.toString(), from.prepare.toString()],
  );
}
