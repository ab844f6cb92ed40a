// Read model of integrations: one row per integration not removed, credentials still sealed, and
// the typed queries the API reads it with. Rebuildable on its own.
import { INTEGRATION_EVENT_TYPES, type IntegrationEvent } from '../commands/integration.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { type Db, Filters, type IdRange, findInAccount, listById } from './queries.ts';

export interface IntegrationRow {
  id: string;
  account_id: string;
  provider: string;
  channel: string;
  name: string;
  credentials_sealed: string;
  hint: string;
  created_at: Date;
}

export const integrationsProjection: Projection = {
  name: 'integrations',
  version: 1,
  tables: ['integrations'],
  types: [...INTEGRATION_EVENT_TYPES],
  personalData: 'unused',
  schema: (t) => `
    CREATE TABLE ${t('integrations')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      provider text NOT NULL,
      channel text NOT NULL,
      name text NOT NULL,
      credentials_sealed text NOT NULL,
      hint text NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('integrations')}_account_id ON ${t('integrations')} (account_id, id DESC);`,
  async apply(tx, events, t) {
    for (const recorded of events) {
      const e = recorded as unknown as IntegrationEvent;
      if (e.type === 'IntegrationCreated') {
        const d = e.data;
        await tx.query(
          `INSERT INTO ${t('integrations')} (id, account_id, provider, channel, name, credentials_sealed, hint, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
          [d.id, d.account_id, d.provider, d.channel, d.name, d.credentials_sealed, d.hint, d.created_at],
        );
      } else if (e.type === 'IntegrationRemoved') {
        await tx.query(`DELETE FROM ${t('integrations')} WHERE id = $1`, [e.data.id]);
      }
    }
  },
};

export const findIntegration = (db: Db, accountId: string, id: string) => findInAccount<IntegrationRow>(db, 'integrations', accountId, id);
export const listIntegrations = (db: Db, accountId: string, range: IdRange) => listById<IntegrationRow>(db, 'integrations', new Filters(accountId), range);

/** The account's integrations, newest first (dispatch takes the newest of a channel). */
export async function accountIntegrations(db: Db, accountId: string): Promise<IntegrationRow[]> {
  const { rows } = await db.query<IntegrationRow>('SELECT * FROM integrations WHERE account_id = $1 ORDER BY id DESC', [accountId]);
  return rows;
}

/** One integration by its id, whatever its account, while it is not removed (a callback URL names it). */
export async function liveIntegration(db: Db, id: string): Promise<IntegrationRow | undefined> {
  const { rows } = await db.query<IntegrationRow>('SELECT * FROM integrations WHERE id = $1', [id]);
  return rows[0];
}
