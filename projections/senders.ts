// Read model of registered senders: one row per sender not removed, with its review status and how
// far it is proven the account's (README "Senders and sender rules", "Proving a number"), and the
// typed queries the API, the send check, inbound routing and the verification courier read it with.
//
// Rebuildable on its own: it reads no other read model. A sender is the account's own number or
// brand name, not a person's data, so nothing here is sealed. One number is held by one account: the
// newest proof of it (a code entered back, or an operator's approval of a whatsapp number) marks every
// other account's proven sender of that number `lost` — decided here by the order of the log, so a
// rebuild decides the same.
import { CODE_ATTEMPTS, SENDER_EVENT_TYPES, type SenderEvent } from '../commands/sender.ts';
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
  /** not_applicable | unverified | sending | code_sent | undelivered | locked | verified | lost */
  verification: string;
  verification_method: string | null;
  verification_expires_at: Date | null;
  verification_attempts_left: number | null;
  verification_requested_at: Date | null;
  verified_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const sendersProjection: Projection = {
  name: 'senders',
  // 3: proof of ownership (verification columns; routing by verified senders only)
  version: 3,
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
      verification text NOT NULL,
      verification_method text,
      verification_expires_at timestamptz,
      verification_attempts_left integer,
      verification_requested_at timestamptz,
      verified_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('senders')}_account_id ON ${t('senders')} (account_id, id DESC);
    CREATE INDEX ${t('senders')}_verified ON ${t('senders')} (sender, channel) WHERE verification = 'verified';
    CREATE INDEX ${t('senders')}_to_send ON ${t('senders')} (verification_requested_at) WHERE verification_requested_at IS NOT NULL;`,
  async apply(tx, events, t) {
    const senders = t('senders');
    /** `id` now holds its number: every other account's proven sender of the number has lost it */
    const proven = async (id: string, method: string, at: string) => {
      const { rows } = await tx.query<{ sender: string; account_id: string }>(
        `UPDATE ${senders} SET verification = 'verified', verification_method = $2, verified_at = $3, verification_expires_at = NULL,
           verification_attempts_left = NULL, updated_at = $3 WHERE id = $1 RETURNING sender, account_id`,
        [id, method, at],
      );
      if (rows[0]) {
        await tx.query(`UPDATE ${senders} SET verification = 'lost', verified_at = NULL, updated_at = $3 WHERE sender = $1 AND account_id <> $2 AND verification = 'verified'`, [
          rows[0].sender, rows[0].account_id, at,
        ]);
      }
    };
    for (const recorded of events) {
      const e = recorded as unknown as SenderEvent;
      switch (e.type) {
        case 'SenderRegistered': {
          const receivesCode = e.data.type === 'long_code' || e.data.type === 'toll_free';
          await tx.query(
            `INSERT INTO ${senders} (id, account_id, sender, channel, country, type, status, registration_required, verification, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $9, $9) ON CONFLICT (id) DO NOTHING`,
            [e.data.id, e.data.account_id, e.data.sender, e.data.channel, e.data.country, e.data.type, e.data.registration_required,
              e.data.channel === 'whatsapp' || receivesCode ? 'unverified' : 'not_applicable', e.data.created_at],
          );
          break;
        }
        case 'SenderApproved': {
          const { rows } = await tx.query<{ channel: string }>(`UPDATE ${senders} SET status = 'approved', updated_at = $2 WHERE id = $1 RETURNING channel`, [e.data.id, e.data.approved_at]);
          // the operator approves a whatsapp number after the platform's own check of it: its proof
          if (rows[0]?.channel === 'whatsapp' && !e.data.automatic) await proven(e.data.id, 'operator_review', e.data.approved_at);
          break;
        }
        case 'SenderRejected':
          await tx.query(`UPDATE ${senders} SET status = 'rejected', rejection_reason = $2, updated_at = $3 WHERE id = $1`, [e.data.id, e.data.reason, e.data.rejected_at]);
          break;
        case 'SenderRemoved':
          await tx.query(`DELETE FROM ${senders} WHERE id = $1`, [e.data.id]);
          break;
        case 'SenderVerificationRequested':
          // a proven sender stays proven while a new proof is under way
          await tx.query(
            `UPDATE ${senders} SET verification = CASE WHEN verification = 'verified' THEN verification ELSE 'sending' END, verification_method = $2,
               verification_requested_at = $3, verification_expires_at = NULL, verification_attempts_left = NULL, updated_at = $3 WHERE id = $1`,
            [e.data.id, e.data.method, e.data.requested_at],
          );
          break;
        case 'SenderVerificationStarted':
          await tx.query(
            `UPDATE ${senders} SET verification = CASE WHEN verification = 'verified' THEN verification ELSE 'code_sent' END, verification_method = $2,
               verification_requested_at = NULL, verification_expires_at = $3, verification_attempts_left = $4, updated_at = $5 WHERE id = $1`,
            [e.data.id, e.data.method, e.data.expires_at, CODE_ATTEMPTS, e.data.started_at],
          );
          break;
        case 'SenderVerificationUndelivered':
          await tx.query(
            `UPDATE ${senders} SET verification = CASE WHEN verification = 'verified' THEN verification ELSE 'undelivered' END,
               verification_expires_at = NULL, verification_attempts_left = NULL, updated_at = $2 WHERE id = $1`,
            [e.data.id, e.data.undelivered_at],
          );
          break;
        case 'SenderVerificationFailed':
          await tx.query(
            `UPDATE ${senders} SET verification_attempts_left = $2, updated_at = $3,
               verification = CASE WHEN $2 = 0 AND verification <> 'verified' THEN 'locked' ELSE verification END,
               verification_expires_at = CASE WHEN $2 = 0 THEN NULL ELSE verification_expires_at END WHERE id = $1`,
            [e.data.id, e.data.attempts_left, e.data.failed_at],
          );
          break;
        case 'SenderVerified':
          await proven(e.data.id, e.data.method, e.data.verified_at);
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
 * The account holding one of `senders` (the forms a provider gives of one number) as a verified
 * sender of `channel`: the owner of an inbound message's number (README "Inbound messages and
 * conversations"). Its country does not matter: E.164 is global. One account holds a number at a
 * time (the newest proof), so at most one answers.
 */
export async function accountOfVerifiedSender(db: Db, senders: readonly string[], channel: string): Promise<string | undefined> {
  const { rows } = await db.query<{ account_id: string }>(
    `SELECT account_id FROM senders WHERE verification = 'verified' AND sender = ANY($1::text[]) AND channel = $2 ORDER BY verified_at DESC LIMIT 1`,
    [senders, channel],
  );
  return rows[0]?.account_id;
}

/** The accounts holding `number` proven (on any channel): one, or none. */
export async function accountsProvingNumber(db: Db, number: string): Promise<string[]> {
  const { rows } = await db.query<{ account_id: string }>(`SELECT DISTINCT account_id FROM senders WHERE verification = 'verified' AND sender = $1`, [number]);
  return rows.map((r) => r.account_id);
}

/**
 * Whether the account holds `sender` approved for `channel` (and `country`, when given; and proven
 * its own, when `verified`). Alphanumeric IDs compare without case, as carriers (and registration)
 * treat them.
 */
export async function isApprovedSender(db: Db, accountId: string, sender: string, channel: string, country?: string, verified = false): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM senders WHERE account_id = $1 AND channel = $2 AND status = 'approved' AND upper(sender) = upper($3) AND ($4::text IS NULL OR country = $4)
       AND (NOT $5 OR verification = 'verified') LIMIT 1`,
    [accountId, channel, sender, country ?? null, verified],
  );
  return rows.length > 0;
}

/** Senders whose account asked for a code that no courier has made yet, oldest request first. */
export async function sendersAwaitingCode(db: Db, limit: number): Promise<{ id: string; account_id: string }[]> {
  const { rows } = await db.query<{ id: string; account_id: string }>(
    `SELECT id, account_id FROM senders WHERE verification_requested_at IS NOT NULL ORDER BY verification_requested_at LIMIT $1`,
    [limit],
  );
  return rows;
}
