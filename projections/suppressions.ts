// Read model of suppressed recipients per account, checked by the dispatcher before every send. Keyed
// by the keyed hash of the address (src/personal-data/address-hash.ts): a suppression an erasure left
// has no address, and an erasure blanks the address of the ones before it.
import type { SuppressionEvent } from '../commands/suppression.ts';
import { addressHasher } from '../src/personal-data/address-hash.ts';
import type { OpenedPersonalData } from '../src/personal-data/codec.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { ERASURE_EVENTS, erasedAddressHashes, isErasure } from './erasures.ts';
import type { Db } from './queries.ts';

/** A row of the suppressions read model as node-postgres returns it. */
export interface SuppressionRow {
  account_id: string;
  address_hash: string;
  /** null once erased (or for the suppression an erasure left) */
  address: string | null;
  reason: string;
  source: string;
  message_id: string | null;
  created_at: Date;
}


export const suppressionsProjection: Projection = {
  name: 'suppressions',
  // 3: the (account_id, address) index segments probe (`suppressed`)
  version: 3,
  tables: ['suppressions'],
  types: ['RecipientSuppressed', 'RecipientUnsuppressed', ...ERASURE_EVENTS],
  schema: (t) => `
    CREATE TABLE ${t('suppressions')} (
      account_id text NOT NULL,
      address_hash text NOT NULL,
      address text,
      reason text NOT NULL,
      source text NOT NULL,
      message_id text,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (account_id, address_hash)
    );
    CREATE INDEX ${t('suppressions')}_address ON ${t('suppressions')} (account_id, address);`,
  async apply(tx, events, t) {
    let hash: ((address: string) => string) | undefined;
    for (const recorded of events) {
      if (isErasure(recorded)) {
        const { account_id } = recorded.data as { account_id: string };
        await tx.query(`UPDATE ${t('suppressions')} SET address = NULL WHERE account_id = $1 AND address_hash = ANY($2::text[])`, [account_id, erasedAddressHashes(recorded)]);
        continue;
      }
      const e = recorded as unknown as SuppressionEvent;
      // events from before suppressions were named by hash carry the address only
      const addressHash = e.data.address_hash ?? (hash ??= await addressHasher(tx))(e.data.address!);
      if (e.type === 'RecipientSuppressed') {
        const erased = (e.data as { personal_data?: OpenedPersonalData }).personal_data?.erased;
        await tx.query(
          `INSERT INTO ${t('suppressions')} (account_id, address_hash, address, reason, source, message_id, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7)
           ON CONFLICT (account_id, address_hash) DO UPDATE SET address = excluded.address, reason = excluded.reason, source = excluded.source,
             message_id = excluded.message_id, created_at = excluded.created_at`,
          [e.data.account_id, addressHash, erased ? null : (e.data.address ?? null), e.data.reason, e.data.source, e.data.message_id ?? null, e.data.at],
        );
      } else {
        await tx.query(`DELETE FROM ${t('suppressions')} WHERE account_id = $1 AND address_hash = $2`, [e.data.account_id, addressHash]);
      }
    }
  },
};

/** Which of these recipients (account and keyed address hash) are suppressed, and why. */
export async function suppressedAmong(db: Db, recipients: readonly { account_id: string; address_hash: string }[]): Promise<Pick<SuppressionRow, 'account_id' | 'address_hash' | 'reason'>[]> {
  const { rows } = await db.query<Pick<SuppressionRow, 'account_id' | 'address_hash' | 'reason'>>(
    `SELECT s.account_id, s.address_hash, s.reason FROM suppressions s
     JOIN unnest($1::text[], $2::text[]) AS u(a, h) ON s.account_id = u.a AND s.address_hash = u.h`,
    [recipients.map((r) => r.account_id), recipients.map((r) => r.address_hash)],
  );
  return rows;
}


