// Read model of browser tracking: one row per account that has a tracking key, with its allowed
// origins, its sealed identity secret, whether a signed identity is required and the custom fields
// and tags a browser may set; and the typed
// queries the account routes (by account) and the public ingestion endpoint (by public key) read.
//
// Rebuildable on its own: it reads no other read model and holds no personal data.
import { TRACKING_EVENT_TYPES, type TrackingEvent } from '../commands/tracking.ts';
import type { Projection } from '../src/read-models/projection.ts';
import type { Db } from './queries.ts';

/** A row of tracking_keys as node-postgres returns it. */
export interface TrackingKeyRow {
  account_id: string;
  public_key: string;
  /** empty: every origin */
  origins: string[];
  /** null only between the key's event and its secret's, which are appended together */
  secret_sealed: string | null;
  require_identity: boolean;
  /** custom fields a browser may set */
  browser_custom_fields: string[];
  /** whether a browser may set tags */
  browser_tags: boolean;
  created_at: Date;
  updated_at: Date;
}

type SettingsEvent = Exclude<TrackingEvent, { type: 'TrackingKeyIssued' }>;

/** The columns of the account's row a settings event sets (besides updated_at). */
function settingsOf(e: SettingsEvent): Partial<Record<keyof TrackingKeyRow, unknown>> {
  switch (e.type) {
    case 'TrackingOriginsSet':
      return { origins: e.data.origins };
    case 'TrackingIdentitySecretIssued':
      return { secret_sealed: e.data.secret_sealed };
    case 'TrackingIdentityRequirementSet':
      return { require_identity: e.data.require_identity };
    case 'TrackingBrowserTraitsSet':
      return { browser_custom_fields: e.data.custom_fields, browser_tags: e.data.tags };
  }
}

export const trackingProjection: Projection = {
  name: 'tracking',
  version: 2,
  tables: ['tracking_keys'],
  types: [...TRACKING_EVENT_TYPES],
  personalData: 'unused',
  schema: (t) => `
    CREATE TABLE ${t('tracking_keys')} (
      account_id text PRIMARY KEY,
      public_key text NOT NULL UNIQUE,
      origins text[] NOT NULL DEFAULT '{}',
      secret_sealed text,
      require_identity boolean NOT NULL DEFAULT true,
      browser_custom_fields text[] NOT NULL DEFAULT '{}',
      browser_tags boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );`,
  async apply(tx, events, t) {
    const table = t('tracking_keys');
    for (const recorded of events) {
      const e = recorded as unknown as TrackingEvent;
      switch (e.type) {
        case 'TrackingKeyIssued':
          await tx.query(`INSERT INTO ${table} (account_id, public_key, created_at, updated_at) VALUES ($1, $2, $3, $3) ON CONFLICT DO NOTHING`, [
            e.data.account_id, e.data.public_key, e.data.at,
          ]);
          break;
        default: {
          const set = Object.entries(settingsOf(e));
          await tx.query(`UPDATE ${table} SET ${set.map(([column], i) => `${column} = $${i + 3}`).join(', ')}, updated_at = $2 WHERE account_id = $1`, [
            e.data.account_id, e.data.at, ...set.map(([, value]) => value),
          ]);
        }
      }
    }
  },
};

/** The account's tracking key, if it has one. */
export async function trackingKeyOfAccount(db: Db, accountId: string): Promise<TrackingKeyRow | undefined> {
  const { rows } = await db.query<TrackingKeyRow>('SELECT * FROM tracking_keys WHERE account_id = $1', [accountId]);
  return rows[0];
}

/** The tracking key with this public key, if any account has it. */
export async function trackingKeyByPublicKey(db: Db, publicKey: string): Promise<TrackingKeyRow | undefined> {
  const { rows } = await db.query<TrackingKeyRow>('SELECT * FROM tracking_keys WHERE public_key = $1', [publicKey]);
  return rows[0];
}
