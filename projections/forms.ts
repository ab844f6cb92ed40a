// Read model of signup forms (README "Signup forms"): each live form with its definition
// (`forms`), and each submission's progress without anything the person entered
// (`form_submissions`: status, the keyed hash of its address, when it expires), which the form's
// counts, the sweep of expired submissions and the erasure of an address read.
//
// Rebuildable on its own: it reads no other read model, and opens no personal data.
import { FORM_EVENT_TYPES, type FormDefinition, type FormEvent } from '../commands/form.ts';
import { FORM_SUBMISSION_EVENT_TYPES, type FormSubmissionEvent } from '../commands/form-submission.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { type Db, Filters, type IdRange, findInAccount, listById } from './queries.ts';

export interface FormRow {
  id: string;
  account_id: string;
  definition: FormDefinition;
  /** submissions received, and how many became contacts on the list */
  submissions: number;
  confirmed: number;
  created_at: Date;
  updated_at: Date;
}

export const formsProjection: Projection = {
  name: 'forms',
  version: 1,
  tables: ['forms', 'form_submissions'],
  types: [...FORM_EVENT_TYPES, ...FORM_SUBMISSION_EVENT_TYPES],
  personalData: 'unused',
  schema: (t) => `
    CREATE TABLE ${t('forms')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      definition jsonb NOT NULL,
      submissions int NOT NULL DEFAULT 0,
      confirmed int NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('forms')}_account_id ON ${t('forms')} (account_id, id DESC);
    CREATE TABLE ${t('form_submissions')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      form_id text NOT NULL,
      status text NOT NULL,
      address_hash text,
      contact_id text,
      submitted_at timestamptz NOT NULL,
      expires_at timestamptz,
      confirmed_at timestamptz
    );
    CREATE INDEX ${t('form_submissions')}_address ON ${t('form_submissions')} (account_id, address_hash) WHERE status = 'pending';
    CREATE INDEX ${t('form_submissions')}_expiry ON ${t('form_submissions')} (expires_at) WHERE status = 'pending';`,
  async apply(tx, events, t) {
    const forms = t('forms');
    const submissions = t('form_submissions');
    for (const recorded of events) {
      const e = recorded as unknown as FormEvent | FormSubmissionEvent;
      switch (e.type) {
        case 'FormCreated': {
          const { account_id, id, created_at, ...definition } = e.data;
          await tx.query(
            `INSERT INTO ${forms} (id, account_id, definition, created_at, updated_at) VALUES ($1, $2, $3, $4, $4) ON CONFLICT (id) DO NOTHING`,
            [id, account_id, JSON.stringify(definition), created_at],
          );
          break;
        }
        case 'FormUpdated':
          await tx.query(`UPDATE ${forms} SET definition = definition || $2::jsonb, updated_at = $3 WHERE id = $1`, [e.data.id, JSON.stringify(e.data.changes), e.data.updated_at]);
          break;
        case 'FormDeleted':
          await tx.query(`DELETE FROM ${forms} WHERE id = $1`, [e.data.id]);
          break;
        case 'FormSubmitted': {
          const d = e.data;
          const { rowCount } = await tx.query(
            `INSERT INTO ${submissions} (id, account_id, form_id, status, address_hash, submitted_at, expires_at) VALUES ($1, $2, $3, 'pending', $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
            [d.id, d.account_id, d.form_id, d.address_hash, d.submitted_at, d.expires_at],
          );
          if (rowCount) await tx.query(`UPDATE ${forms} SET submissions = submissions + 1 WHERE id = $1`, [d.form_id]);
          break;
        }
        case 'FormSubmissionConfirmed': {
          const d = e.data;
          const { rowCount } = await tx.query(
            `UPDATE ${submissions} SET status = 'confirmed', contact_id = $2, confirmed_at = $3 WHERE id = $1 AND status = 'pending'`,
            [d.id, d.contact_id, d.confirmed_at],
          );
          if (rowCount) await tx.query(`UPDATE ${forms} SET confirmed = confirmed + 1 WHERE id = $1`, [d.form_id]);
          break;
        }
        case 'FormSubmissionExpired':
          await tx.query(`UPDATE ${submissions} SET status = 'expired' WHERE id = $1 AND status = 'pending'`, [e.data.id]);
          break;
      }
    }
  },
};

export const findForm = (db: Db, accountId: string, id: string) => findInAccount<FormRow>(db, 'forms', accountId, id);
export const listForms = (db: Db, accountId: string, range: IdRange) => listById<FormRow>(db, 'forms', new Filters(accountId), range);

/** A live form by its id alone: what the public routes (the hosted page, a submission) read. */
export async function formById(db: Db, id: string): Promise<FormRow | undefined> {
  const { rows } = await db.query<FormRow>('SELECT * FROM forms WHERE id = $1', [id]);
  return rows[0];
}

/** The form a submission was made to. */
export async function formOfSubmission(db: Db, submissionId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ form_id: string }>('SELECT form_id FROM form_submissions WHERE id = $1', [submissionId]);
  return rows[0]?.form_id;
}

/** The account's pending submissions to these addresses (by their keyed hashes): what erasing an address also erases. */
export async function pendingSubmissionsTo(db: Db, accountId: string, addressHashes: readonly string[]): Promise<string[]> {
  if (addressHashes.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM form_submissions WHERE account_id = $1 AND address_hash = ANY($2::text[]) AND status = 'pending'`,
    [accountId, addressHashes],
  );
  return rows.map((r) => r.id);
}

/** Pending submissions whose link has expired, oldest first: the sweep erases them. */
export async function expiredSubmissions(db: Db, now: Date, limit: number): Promise<{ id: string; account_id: string }[]> {
  const { rows } = await db.query<{ id: string; account_id: string }>(
    `SELECT id, account_id FROM form_submissions WHERE status = 'pending' AND expires_at <= $1 ORDER BY expires_at LIMIT $2`,
    [now, limit],
  );
  return rows;
}
