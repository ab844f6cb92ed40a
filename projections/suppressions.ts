// Read model of suppressed recipients per account, checked by the dispatcher before every send.
import type { SuppressionEvent } from '../commands/suppression.ts';
import type { Projection } from '../src/read-models/projection.ts';
import type { Db, Recipient } from './queries.ts';

/** A row of the suppressions read model as node-postgres returns it. */
export interface SuppressionRow {
  account_id: string;
  address: string;
  reason: string;
  source: string;
  message_id: string | null;
  created_at: Date;
}

export const suppressionsProjection: Projection = {
  name: 'suppressions',
  version: 1,
  tables: ['suppressions'],
  types: ['RecipientSuppressed', 'RecipientUnsuppressed'],
  schema: (t) => `
    CREATE TABLE ${t('suppressions')} (
      account_id text NOT NULL,
      address text NOT NULL,
      reason text NOT NULL,
      source text NOT NULL,
      message_id text,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (account_id, address)
    );`,
  async apply(tx, events, t) {
    for (const recorded of events) {
      const e = recorded as unknown as SuppressionEvent;
      if (e.type === 'RecipientSuppressed') {
        await tx.query(
          `INSERT INTO ${t('suppressions')} (account_id, address, reason, source, message_id, created_at) VALUES ($1,$2,$3,$4,$5,$6)
           ON CONFLICT (account_id, address) DO UPDATE SET reason = excluded.reason, source = excluded.source, message_id = excluded.message_id, created_at = excluded.created_at`,
          [e.data.account_id, e.data.address, e.data.reason, e.data.source, e.data.message_id ?? null, e.data.at],
        );
      } else {
        await tx.query(`DELETE FROM ${t('suppressions')} WHERE account_id = $1 AND address = $2`, [e.data.account_id, e.data.address]);
      }
    }
  },
};

/** Which of these recipients are suppressed, and why. */
export async function suppressedAmong(db: Db, recipients: readonly Recipient[]): Promise<Pick<SuppressionRow, 'account_id' | 'address' | 'reason'>[]> {
  const { rows } = await db.query<Pick<SuppressionRow, 'account_id' | 'address' | 'reason'>>(
    `SELECT s.account_id, s.address, s.reason FROM suppressions s
     JOIN unnest($1::text[], $2::text[]) AS u(a, addr) ON s.account_id = u.a AND s.address = u.addr`,
    [recipients.map((r) => r.account_id), recipients.map((r) => r.address)],
  );
  return rows;
}
