// Read model of registered senders: one row per sender not removed, with its review status, and the
// typed queries the API reads it with.
//
// Rebuildable on its own: it reads no other read model. A sender is the account's own number or
// brand name, not a person's data, so nothing here is sealed.
import { SENDER_EVENT_TYPES, type SenderEvent } from '../commands/sender.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { type Db, Filters, type IdRange, findInAccount, listById } from './queries.ts';

/** A row of the senders read model as node-postgres returns it. */
export interface SenderRow {
  id: string;
  account_id: string;
  sender: string;
  channel: string;
  country: string;
  type: string;
  status: string;
  registration_required: boolean;
  rejection_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export const sendersProjection: Projection = {
  name: 'senders',
  // 2: the approved-sender index inbound routing looks numbers up by
  version: 2,
  tables: ['senders'],
  types: [...SENDER_EVENT_TYPES],
  personalData: 'unused',
  schema: (t) => `
    CREATE TABLE ${t('senders')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      sender text NOT NULL,
      channel text NOT NULL,
      country text NOT NULL,
      type text NOT NULL,
      status text NOT NULL,
      registration_required boolean NOT NULL,
      rejection_reason text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('senders')}_account_id ON ${t('senders')} (account_id, id DESC);
    CREATE INDEX ${t('senders')}_approved ON ${t('senders')} (sender, channel) WHERE status = 'approved';`,
  async apply(tx, events, t) {
    const senders = t('senders');
    for (const recorded of events) {
      const e = recorded as unknown as SenderEvent;
      switch (e.type) {
        case 'SenderRegistered':
          await tx.query(
            `INSERT INTO ${senders} (id, account_id, sender, channel, country, type, status, registration_required, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $8) ON CONFLICT (id) DO NOTHING`,
            [e.data.id, e.data.account_id, e.data.sender, e.data.channel, e.data.country, e.data.type, e.data.registration_required, e.data.created_at],
          );
          break;
        case 'SenderApproved':
          await tx.query(`UPDATE ${senders} SET status = 'approved', updated_at = $2 WHERE id = $1`, [e.data.id, e.data.approved_at]);
          break;
        case 'SenderRejected':
          await tx.query(`UPDATE ${senders} SET status = 'rejected', rejection_reason = $2, updated_at = $3 WHERE id = $1`, [e.data.id, e.data.reason, e.data.rejected_at]);
          break;
        case 'SenderRemoved':
          await tx.query(`DELETE FROM ${senders} WHERE id = $1`, [e.data.id]);
          break;
      }
    }
  },
};

/** The account's sender with this id, if it has one. */
export const findSender = (db: Db, accountId: string, id: string) => findInAccount<SenderRow>(db, 'senders', accountId, id);

/** The account's senders, newest first, within `range`, optionally of one status. */
export function listSenders(db: Db, accountId: string, range: IdRange, status?: string) {
  return listById<SenderRow>(db, 'senders', new Filters(accountId).compare('status', '=', status), range);
}

/**
 * The account that registered one of `senders` (the forms a provider gives of one number) as an
 * approved sender on one of `channels`: the owner of an inbound message's number (DECISIONS.md
 * "Inbound messages"). The latest approval wins should two accounts hold it.
 */
export async function accountOfApprovedSender(db: Db, senders: readonly string[], channels: readonly string[]): Promise<string | undefined> {
  const { rows } = await db.query<{ account_id: string }>(
    `SELECT account_id FROM senders WHERE status = 'approved' AND sender = ANY($1::text[]) AND channel = ANY($2::text[]) ORDER BY updated_at DESC LIMIT 1`,
    [senders, channels],
  );
  return rows[0]?.account_id;
}

/**
 * Whether the account holds `sender` approved for `channel` (and `country`, when given). Alphanumeric
 * IDs compare without case, as carriers (and registration) treat them.
 */
export async function isApprovedSender(db: Db, accountId: string, sender: string, channel: string, country?: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM senders WHERE account_id = $1 AND channel = $2 AND status = 'approved' AND upper(sender) = upper($3) AND ($4::text IS NULL OR country = $4) LIMIT 1`,
    [accountId, channel, sender, country ?? null],
  );
  return rows.length > 0;
}
