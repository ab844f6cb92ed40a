// Read model of campaigns: one row per campaign with its status and send progress, the queue the
// campaign sender polls (due scheduled campaigns and sends in progress), and the typed queries.
import { CAMPAIGN_EVENT_TYPES, type Audience, type CampaignEvent, type CampaignStatus, type CampaignTemplate } from '../commands/campaign.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { applyDocuments, type Row } from './document.ts';
import { type Db, Filters, type IdRange, findInAccount, listById } from './queries.ts';

/** A row of the campaigns read model as node-postgres returns it. */
export interface CampaignRow {
  id: string;
  account_id: string;
  name: string;
  audience_type: Audience['type'];
  audience_id: string;
  template: CampaignTemplate;
  status: CampaignStatus;
  scheduled_at: Date | null;
  created_at: Date;
  started_at: Date | null;
  sent_at: Date | null;
  cancelled_at: Date | null;
  failed_at: Date | null;
  failure_reason: string | null;
  accepted: number;
  skipped: number;
  through_contact_id: string | null;
  updated_at: Date;
}

const CAMPAIGN_COLUMNS = [
  'id', 'account_id', 'name', 'audience_type', 'audience_id', 'template', 'status', 'scheduled_at', 'created_at', 'started_at', 'sent_at',
  'cancelled_at', 'failed_at', 'failure_reason', 'accepted', 'skipped', 'through_contact_id', 'updated_at',
] as const satisfies readonly (keyof CampaignRow)[];

export const campaignsProjection: Projection = {
  name: 'campaigns',
  version: 1,
  tables: ['campaigns'],
  types: [...CAMPAIGN_EVENT_TYPES],
  schema: (t) => `
    CREATE TABLE ${t('campaigns')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      name text NOT NULL,
      audience_type text NOT NULL,
      audience_id text NOT NULL,
      template jsonb NOT NULL,
      status text NOT NULL,
      scheduled_at timestamptz,
      created_at timestamptz NOT NULL,
      started_at timestamptz,
      sent_at timestamptz,
      cancelled_at timestamptz,
      failed_at timestamptz,
      failure_reason text,
      accepted int NOT NULL DEFAULT 0,
      skipped int NOT NULL DEFAULT 0,
      through_contact_id text,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('campaigns')}_account_id ON ${t('campaigns')} (account_id, id DESC);
    CREATE INDEX ${t('campaigns')}_to_send ON ${t('campaigns')} (coalesce(scheduled_at, created_at), id) WHERE status IN ('scheduled', 'sending');`,
  async apply(tx, events, t) {
    await applyDocuments(tx, t('campaigns'), CAMPAIGN_COLUMNS, events, (e) => (e.data as { id: string }).id, evolveRow);
  },
};

function evolveRow(row: Row | undefined, recorded: { type: string; data: unknown }): Row | undefined {
  const e = recorded as CampaignEvent;
  if (e.type === 'CampaignCreated') {
    const d = e.data;
    return {
      id: d.id, account_id: d.account_id, name: d.name, audience_type: d.audience.type, audience_id: d.audience.id, template: d.template,
      status: d.scheduled_at ? 'scheduled' : 'sending', scheduled_at: d.scheduled_at, created_at: d.created_at, started_at: null, sent_at: null,
      cancelled_at: null, failed_at: null, failure_reason: null, accepted: 0, skipped: 0, through_contact_id: null, updated_at: d.created_at,
    };
  }
  if (!row) return row;
  switch (e.type) {
    case 'CampaignCancelled':
      return { ...row, status: 'cancelled', cancelled_at: e.data.cancelled_at, updated_at: e.data.cancelled_at };
    case 'CampaignSendStarted':
      return { ...row, status: 'sending', started_at: e.data.started_at, updated_at: e.data.started_at };
    case 'CampaignBatchAccepted':
      return {
        ...row, accepted: Number(row.accepted) + e.data.accepted, skipped: Number(row.skipped) + e.data.skipped, through_contact_id: e.data.through_contact_id,
        updated_at: e.data.at,
      };
    case 'CampaignSent':
      return { ...row, status: 'sent', sent_at: e.data.sent_at, accepted: e.data.accepted, skipped: e.data.skipped, updated_at: e.data.sent_at };
    case 'CampaignFailed':
      return { ...row, status: 'failed', failed_at: e.data.failed_at, failure_reason: e.data.reason, updated_at: e.data.failed_at };
  }
  return row;
}

export const findCampaign = (db: Db, accountId: string, id: string) => findInAccount<CampaignRow>(db, 'campaigns', accountId, id);

export function listCampaigns(db: Db, accountId: string, filter: { status?: CampaignStatus }, range: IdRange): Promise<CampaignRow[]> {
  return listById<CampaignRow>(db, 'campaigns', new Filters(accountId).compare('status', '=', filter.status), range);
}

/** The campaigns to send now: sends in progress and scheduled ones that have fallen due, oldest first. */
export async function campaignsToSend(db: Db, now: Date, limit: number): Promise<Pick<CampaignRow, 'id' | 'account_id'>[]> {
  const { rows } = await db.query<Pick<CampaignRow, 'id' | 'account_id'>>(
    `SELECT id, account_id FROM campaigns WHERE status IN ('scheduled', 'sending') AND coalesce(scheduled_at, created_at) <= $1
     ORDER BY coalesce(scheduled_at, created_at), id LIMIT $2`,
    [now, limit],
  );
  return rows;
}
