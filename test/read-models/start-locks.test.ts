// Starting a process against read models that are up to date takes no lock on their tables or views.
// `engage serve --processes 2` failed to start now and then: each API process, as it started, ran the
// webhook outbox's upgrade DDL and made its views again (DROP VIEW, CREATE VIEW), while the worker
// process was reading those views; the two took their locks in opposite orders and Postgres killed
// the starting process's transaction as a deadlock. The upgrade now runs once per generation and
// upgrade text (README "The event log and the read models").
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PROJECTIONS } from '../../projections/index.ts';
import { webhookOutboxProjection } from '../../projections/webhook-outbox.ts';
import { type Engage, openEngage } from '../../src/context.ts';
import { ensureProjection } from '../../src/read-models/generations.ts';
import { freshDatabase, testConfig } from '../support/harness.ts';

const silent = pino({ level: 'silent' });

describe('a process starting beside readers of the read models', () => {
  let url: string;
  let engage: Engage;
  /** connections that give up on a lock after a second, as a start must not wait for readers */
  let impatient: pg.Pool;
  let reader: pg.PoolClient;

  beforeAll(async () => {
    url = await freshDatabase();
    engage = await openEngage({ config: testConfig(url), log: silent, projections: [] });
    for (const p of ALL_PROJECTIONS) await ensureProjection(engage.pool, p);
    impatient = new pg.Pool({ connectionString: url, max: 2, options: '-c lock_timeout=1000' });
    reader = await engage.pool.connect();
  }, 120_000);
  afterAll(async () => {
    await reader?.query('ROLLBACK').catch(() => undefined);
    reader?.release();
    await impatient?.end();
    await engage?.close();
  });

  it('takes no lock a reader holds: every read model is up to date, so nothing is altered or made again', async () => {
    // a worker's webhook sender, mid-transaction on the outbox's views and tables
    await reader.query('BEGIN');
    for (const base of webhookOutboxProjection.tables) await reader.query(`SELECT 1 FROM ${base} LIMIT 1`);
    try {
      for (const p of ALL_PROJECTIONS) await ensureProjection(impatient, p);
    } finally {
      await reader.query('ROLLBACK');
    }
  });

  it('still brings a generation made by older code up to date, once: its missing column and its view', async () => {
    // as an install from before the upgrade was recorded: the column the upgrade adds is not there
    // (its view goes with it), and nothing says the upgrade ran
    const { rows } = await engage.pool.query<{ generation: number }>(`SELECT generation FROM projection_state WHERE name = $1 AND active`, [webhookOutboxProjection.name]);
    const table = `webhook_deliveries_g${rows[0].generation}`;
    await engage.pool.query(`ALTER TABLE ${table} DROP COLUMN replay_id CASCADE`);
    await engage.pool.query(`UPDATE projection_state SET upgraded = NULL WHERE name = $1`, [webhookOutboxProjection.name]);
    await ensureProjection(engage.pool, webhookOutboxProjection);
    await engage.pool.query('SELECT replay_id FROM webhook_deliveries LIMIT 1');
    // and the next start leaves it alone again, readers or not
    await reader.query('BEGIN');
    await reader.query('SELECT 1 FROM webhook_deliveries LIMIT 1');
    try {
      await ensureProjection(impatient, webhookOutboxProjection);
    } finally {
      await reader.query('ROLLBACK');
    }
  });
});
