// Read model of custom field definitions per account, and the query that lists them.
import type { CustomFieldEvent, FieldType } from '../commands/custom-fields.ts';
import type { Projection } from '../src/read-models/projection.ts';
import type { Db } from './queries.ts';

/** A row of the custom_fields read model as node-postgres returns it. */
export interface CustomFieldRow {
  id: string;
  account_id: string;
  key: string;
  label: string;
  type: FieldType;
  options: string[] | null;
  created_at: Date;
}

export const customFieldsProjection: Projection = {
  name: 'custom_fields',
  version: 1,
  tables: ['custom_fields'],
  types: ['CustomFieldDefined', 'CustomFieldDeleted'],
  schema: (t) => `
    CREATE TABLE ${t('custom_fields')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      key text NOT NULL,
      label text NOT NULL,
      type text NOT NULL,
      options jsonb,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('custom_fields')}_account ON ${t('custom_fields')} (account_id, id);`,
  async apply(tx, events, t) {
    for (const recorded of events) {
      const e = recorded as unknown as CustomFieldEvent;
      if (e.type === 'CustomFieldDefined') {
        await tx.query(
          `INSERT INTO ${t('custom_fields')} (id, account_id, key, label, type, options, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7)
           ON CONFLICT (id) DO NOTHING`,
          [e.data.id, e.data.account_id, e.data.key, e.data.label, e.data.type, e.data.options ? JSON.stringify(e.data.options) : null, e.data.created_at],
        );
      } else {
        await tx.query(`DELETE FROM ${t('custom_fields')} WHERE id = $1`, [e.data.id]);
      }
    }
  },
};

/** The account's field definitions, oldest first. */
export async function listCustomFields(db: Db, accountId: string): Promise<CustomFieldRow[]> {
  const { rows } = await db.query<CustomFieldRow>('SELECT * FROM custom_fields WHERE account_id = $1 ORDER BY id', [accountId]);
  return rows;
}
