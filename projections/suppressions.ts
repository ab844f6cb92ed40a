// Read model of suppressed recipients per account, checked by the dispatcher before every send. Keyed
// by the keyed hash of the address (src/personal-data/address-hash.ts): a suppression an erasure left
// has no address, and an erasure blanks the address of the ones before it.
import type { SuppressionEvent } from '../commands/suppression.ts';
import { eachOnce } from '../src/db/key-lists.ts';
import type { Migration } from '../src/db/migrations.ts';
import { plannedOnceFunction, prepared } from '../src/db/prepared.ts';
import { addressHasher } from '../src/personal-data/address-hash.ts';
import { ERASED, type OpenedPersonalData } from '../src/personal-data/codec.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { ERASURE_EVENTS, erasedAddressHashes, isErasure } from './erasures.ts';
import { type Db, Filters } from './queries.ts';

/** A row of the suppressions read model as node-postgres returns it. */
export interface SuppressionRow {
  account_id: string;
  address_hash: string;
  /** null once erased (or for the suppression an erasure left) */
  address: string | null;
  /** email or phone; null when unknown (an erasure's suppression of an address never suppressed before, events before it) */
  channel: 'email' | 'phone' | null;
  reason: string;
  source: string;
  message_id: string | null;
  created_at: Date;
}


/** The event's channel; for events from before it was recorded, the address's kind when the address is there. */
function channelOf(data: { channel?: string; address?: string }): string | null {
  if (data.channel) return data.channel;
  if (typeof data.address !== 'string' || data.address === ERASED) return null;
  return data.address.includes('@') ? 'email' : 'phone';
}

export const suppressionsProjection: Projection = {
  name: 'suppressions',
  // 3: the (account_id, address) index segments probe (`suppressed`)
  // 4: channel, and the newest-first index of the suppression list API
  version: 4,
  tables: ['suppressions'],
  types: ['RecipientSuppressed', 'RecipientUnsuppressed', ...ERASURE_EVENTS],
  flushOn: ERASURE_EVENTS,
  schema: (t) => `
    CREATE TABLE ${t('suppressions')} (
      account_id text NOT NULL,
      address_hash text NOT NULL,
      address text,
      channel text,
      reason text NOT NULL,
      source text NOT NULL,
      message_id text,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (account_id, address_hash)
    );
    CREATE INDEX ${t('suppressions')}_address ON ${t('suppressions')} (account_id, address);
    CREATE INDEX ${t('suppressions')}_newest ON ${t('suppressions')} (account_id, created_at DESC, address_hash DESC);`,
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
          // an erasure's suppression (hash only) replacing another keeps that one's channel
          `INSERT INTO ${t('suppressions')} (account_id, address_hash, address, channel, reason, source, message_id, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)
           ON CONFLICT (account_id, address_hash) DO UPDATE SET address = excluded.address, channel = coalesce(excluded.channel, ${t('suppressions')}.channel),
             reason = excluded.reason, source = excluded.source, message_id = excluded.message_id, created_at = excluded.created_at`,
          [e.data.account_id, addressHash, erased ? null : (e.data.address ?? null), channelOf(e.data), e.data.reason, e.data.source, e.data.message_id ?? null, e.data.at],
        );
      } else {
        await tx.query(`DELETE FROM ${t('suppressions')} WHERE account_id = $1 AND address_hash = $2`, [e.data.account_id, addressHash]);
      }
    }
  },
};

/**
 * Which of these recipients (account and keyed address hash) are suppressed, and why. The keys also
 * as `= ANY`, conditions of the primary key: joined only, a dispatch batch was planned as a hash join
 * over a scan of every suppression. A function planned once per session (SUPPRESSED_AMONG_FUNCTION).
 */
export async function suppressedAmong(db: Db, recipients: readonly { account_id: string; address_hash: string }[]): Promise<Pick<SuppressionRow, 'account_id' | 'address_hash' | 'reason'>[]> {
  const { rows } = await db.query<Pick<SuppressionRow, 'account_id' | 'address_hash' | 'reason'>>(prepared(
    'SELECT o_account_id AS account_id, o_address_hash AS address_hash, o_reason AS reason FROM suppressed_among($1::text[], $2::text[], $3::text[])',
    [recipients.map((r) => r.account_id), recipients.map((r) => r.address_hash), eachOnce(recipients.map((r) => r.account_id))],
  ));
  return rows;
}

/**
 * suppressedAmong's statement, planned once per session (plannedOnceFunction): a probe of the
 * suppressions' key per recipient.
 */
const SUPPRESSED_AMONG_FUNCTION = plannedOnceFunction(
  'suppressed_among(p_accounts text[], p_hashes text[], p_each_account text[])',
  'o_account_id text, o_address_hash text, o_reason text',
  `SELECT s.account_id, s.address_hash, s.reason FROM suppressions s
     JOIN unnest(p_accounts, p_hashes) AS u(a, h) ON s.account_id = u.a AND s.address_hash = u.h
    WHERE s.account_id = ANY(p_each_account) AND s.address_hash = ANY(p_hashes)`,
);

export const SUPPRESSION_LOOKUP_MIGRATIONS: Migration[] = [
  { id: 64, name: 'suppressions: the recipients suppressed read by a function planned once per session', sql: SUPPRESSED_AMONG_FUNCTION },
];

/** The suppression of one address (by its keyed hash) in an account, if there is one. */
export async function findSuppression(db: Db, accountId: string, addressHash: string): Promise<SuppressionRow | undefined> {
  const { rows } = await db.query<SuppressionRow>('SELECT * FROM suppressions WHERE account_id = $1 AND address_hash = $2', [accountId, addressHash]);
  return rows[0];
}

/** Where a page of the suppression list ends: its last row in newest-first order. */
export interface SuppressionPosition {
  created_at: string;
  address_hash: string;
}

/** An account's suppressions, newest first (ties by hash), after `after`, optionally of one reason or one address. */
export async function listSuppressions(
  db: Db,
  accountId: string,
  filter: { reason?: string; addressHash?: string },
  range: { limit: number; after?: SuppressionPosition },
): Promise<SuppressionRow[]> {
  const f = new Filters(accountId).compare('reason', '=', filter.reason).compare('address_hash', '=', filter.addressHash);
  if (range.after) {
    f.add((n) => `(created_at, address_hash) < ($${n}::timestamptz, $${n + 1})`, range.after.created_at);
    f.params.push(range.after.address_hash);
  }
  const params = [...f.params, range.limit];
  const { rows } = await db.query<SuppressionRow>(
    `SELECT * FROM suppressions WHERE ${f.where.join(' AND ')} ORDER BY created_at DESC, address_hash DESC LIMIT $${params.length}`,
    params,
  );
  return rows;
}
