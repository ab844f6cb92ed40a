// Analytics counts a message from its status events, which name its channel (StatusFacts): a message
// accepted with them keeps no row here, and a batch of such messages reads none either (README "The
// write path": each round trip of a small batch is a wake-up of both sides). Counted with the
// transaction's own statistics of the table: the scans it began.
import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { MESSAGE_STATUS_FACTS_VERSION } from '../../commands/message.ts';
import { analyticsProjection } from '../../projections/analytics.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import { ensureProjection } from '../../src/read-models/generations.ts';
import { tableNamer } from '../../src/read-models/projection.ts';
import { migratedStoreForSuite } from '../support/event-store.ts';

const db = migratedStoreForSuite(2);
const ACCOUNT = 'acct_01JFACTS000000000000000000';
const AT = '2026-11-30T12:00:00.000Z';

const recorded = (type: string, data: Record<string, unknown>, schemaVersion?: number) =>
  ({ type, data, metadata: schemaVersion ? { schemaVersion } : {} }) as unknown as RecordedEvent;

/** The scans of the analytics_messages table (its own and its indexes') that applying `events` began, in a transaction rolled back after. */
async function scansOf(events: RecordedEvent[]): Promise<number> {
  const { rows: state } = await db.pool.query<{ generation: number }>(`SELECT generation FROM projection_state WHERE name = 'analytics' AND active`);
  const t = tableNamer(state[0]!.generation);
  const client: pg.PoolClient = await db.pool.connect();
  try {
    await client.query('BEGIN');
    // its sequential scans, and the scans of its indexes
    const scans = async () => Number((await client.query<{ n: string }>(
      `SELECT (pg_stat_get_xact_numscans($1::regclass)
             + coalesce((SELECT sum(pg_stat_get_xact_numscans(indexrelid)) FROM pg_index WHERE indrelid = $1::regclass), 0))::text AS n`,
      [t('analytics_messages')],
    )).rows[0]!.n);
    const before = await scans();
    await analyticsProjection.apply(client, events, t);
    return (await scans()) - before;
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

beforeAll(async () => {
  await ensureProjection(db.pool, analyticsProjection);
});

describe("analytics' batch", () => {
  it('reads no row for messages accepted with StatusFacts, their status events neither', async () => {
    const facts = { channel: 'sms', account_id: ACCOUNT, at: AT };
    expect(await scansOf([
      recorded('MessageAccepted', { id: 'msg_1', account_id: ACCOUNT, channel: 'sms', status: 'queued' }, MESSAGE_STATUS_FACTS_VERSION),
      recorded('MessageAccepted', { id: 'msg_2', account_id: ACCOUNT, channel: 'sms', status: 'queued' }, MESSAGE_STATUS_FACTS_VERSION),
      recorded('MessageSent', { id: 'msg_1', provider_message_id: 'p1', ...facts }),
      recorded('MessageDelivered', { id: 'msg_1', provider_message_id: 'p1', ...facts }),
    ])).toBe(0);
  });

  it('reads the rows of messages accepted before StatusFacts', async () => {
    expect(await scansOf([recorded('MessageSent', { id: 'msg_old', account_id: ACCOUNT, provider_message_id: 'p0', at: AT })])).toBeGreaterThan(0);
    expect(await scansOf([recorded('MessageAccepted', { id: 'msg_old2', account_id: ACCOUNT, channel: 'sms', status: 'queued' })])).toBeGreaterThan(0);
  });
});
