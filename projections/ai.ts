// Read model of the AI helpers' settings: one row per account that has any (brand voice, the writer
// and coach add-ons) and the coach's recommendations per account and UTC day, with the typed
// queries the API reads them with.
//
// Rebuildable on its own: it reads no other read model, and holds no personal data.
import { addonEventOf, AI_EVENT_TYPES, type AddonStatus, type AiEvent, type AiRecommendation, type BrandVoiceProfile, type RecommendationsSource } from '../commands/ai.ts';
import type { Projection } from '../src/read-models/projection.ts';
import type { Db } from './queries.ts';

/** A row of ai_accounts as node-postgres returns it. */
export interface AiAccountRow {
  account_id: string;
  brand_voice: BrandVoiceProfile | null;
  brand_voice_updated_at: Date | null;
  writer_status: AddonStatus;
  writer_requested_at: Date | null;
  writer_note: string | null;
  writer_enabled_at: Date | null;
  coach_status: AddonStatus;
  coach_requested_at: Date | null;
  coach_note: string | null;
  coach_enabled_at: Date | null;
  updated_at: Date;
}

export interface AiRecommendationsRow {
  account_id: string;
  day: string;
  body: AiRecommendation[];
  /** the provider's model, or null when the rule-based fallback made them (then degraded_reason says why) */
  model: string | null;
  degraded_reason: string | null;
  generated_at: Date;
}

/** What made a recorded day's recommendations. */
export const sourceOfRecommendations = (row: AiRecommendationsRow): RecommendationsSource =>
  row.model !== null ? { model: row.model } : { degraded_reason: row.degraded_reason! };

export const aiProjection: Projection = {
  name: 'ai',
  version: 2,
  tables: ['ai_accounts', 'ai_recommendations'],
  types: [...AI_EVENT_TYPES],
  personalData: 'unused',
  schema: (t) => `
    CREATE TABLE ${t('ai_accounts')} (
      account_id text PRIMARY KEY,
      brand_voice jsonb,
      brand_voice_updated_at timestamptz,
      writer_status text NOT NULL DEFAULT 'none',
      writer_requested_at timestamptz,
      writer_note text,
      writer_enabled_at timestamptz,
      coach_status text NOT NULL DEFAULT 'none',
      coach_requested_at timestamptz,
      coach_note text,
      coach_enabled_at timestamptz,
      updated_at timestamptz NOT NULL
    );
    CREATE TABLE ${t('ai_recommendations')} (
      account_id text NOT NULL,
      day date NOT NULL,
      body jsonb NOT NULL,
      model text,
      degraded_reason text,
      generated_at timestamptz NOT NULL,
      PRIMARY KEY (account_id, day),
      CHECK ((model IS NULL) <> (degraded_reason IS NULL))
    );`,
  async apply(tx, events, t) {
    const accounts = t('ai_accounts');
    // sets columns of the account's row, creating it first when it has none
    const upsert = async (accountId: string, at: string, columns: Record<string, unknown>) => {
      const names = Object.keys(columns);
      const values = Object.values(columns);
      await tx.query(
        `INSERT INTO ${accounts} (account_id, updated_at${names.map((n) => `, ${n}`).join('')}) VALUES ($1, $2${names.map((_, i) => `, $${i + 3}`).join('')})
         ON CONFLICT (account_id) DO UPDATE SET updated_at = EXCLUDED.updated_at${names.map((n) => `, ${n} = EXCLUDED.${n}`).join('')}`,
        [accountId, at, ...values],
      );
    };
    for (const recorded of events) {
      const e = recorded as unknown as AiEvent;
      const { account_id, at } = e.data;
      switch (e.type) {
        case 'BrandVoiceSet':
          await upsert(account_id, at, { brand_voice: JSON.stringify(e.data.profile), brand_voice_updated_at: at });
          break;
        case 'BrandVoiceCleared':
          await upsert(account_id, at, { brand_voice: null, brand_voice_updated_at: at });
          break;
        case 'AiRecommendationsGenerated':
          await tx.query(
            `INSERT INTO ${t('ai_recommendations')} (account_id, day, body, model, degraded_reason, generated_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account_id, day) DO NOTHING`,
            [account_id, e.data.day, JSON.stringify(e.data.recommendations), 'model' in e.data ? e.data.model : null, 'degraded_reason' in e.data ? e.data.degraded_reason : null, at],
          );
          break;
        default: {
          // the column names come from the fixed add-on list, never from the event
          const { addon, change } = addonEventOf(e.type)!;
          if (change === 'requested') {
            const note = (e.data as { note?: string }).note ?? null;
            await upsert(account_id, at, { [`${addon}_status`]: 'requested', [`${addon}_requested_at`]: at, [`${addon}_note`]: note });
          } else if (change === 'enabled') {
            await upsert(account_id, at, { [`${addon}_status`]: 'enabled', [`${addon}_enabled_at`]: at });
          } else {
            await upsert(account_id, at, { [`${addon}_status`]: 'none', [`${addon}_requested_at`]: null, [`${addon}_note`]: null, [`${addon}_enabled_at`]: null });
          }
        }
      }
    }
  },
};

/** The account's AI settings, if it has any. */
export async function findAiAccount(db: Db, accountId: string): Promise<AiAccountRow | undefined> {
  const { rows } = await db.query<AiAccountRow>('SELECT * FROM ai_accounts WHERE account_id = $1', [accountId]);
  return rows[0];
}

/** The coach's recommendations of the account for one UTC day (YYYY-MM-DD), if recorded. */
export async function findAiRecommendations(db: Db, accountId: string, day: string): Promise<AiRecommendationsRow | undefined> {
  const { rows } = await db.query<AiRecommendationsRow>(
    `SELECT account_id, to_char(day, 'YYYY-MM-DD') AS day, body, model, degraded_reason, generated_at FROM ai_recommendations WHERE account_id = $1 AND day = $2`,
    [accountId, day],
  );
  return rows[0];
}
