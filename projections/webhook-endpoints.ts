// webhook_endpoints (a table of the webhook outbox projection; every statement on it is here): the
// endpoints as the outbox knows them, in log order — what it fans events out to and what the sender
// signs with — and the API's reads of them.
import type { WebhookEndpointEvent } from '../commands/webhook-endpoint.ts';
import type { TableNamer } from '../src/read-models/projection.ts';
import { type Db, findInAccount } from './queries.ts';
import type { EndpointSubscription } from './webhook-payloads.ts';

export const endpointsSchema = (t: TableNamer) => `
    CREATE TABLE ${t('webhook_endpoints')} (
      id text PRIMARY KEY, account_id text NOT NULL, url text NOT NULL, events text[] NOT NULL, status text NOT NULL,
      secret_sealed text NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('webhook_endpoints')}_account ON ${t('webhook_endpoints')} (account_id, id);`;

/** What an endpoint's event changes in its row (`t`: the outbox's generation). */
export async function storeEndpointEvent(tx: Db, e: WebhookEndpointEvent, t: TableNamer): Promise<void> {
  switch (e.type) {
    case 'WebhookEndpointCreated': {
      const d = e.data;
      await tx.query(
        `INSERT INTO ${t('webhook_endpoints')} (id, account_id, url, events, status, secret_sealed, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$7)
         ON CONFLICT (id) DO NOTHING`,
        [d.id, d.account_id, d.url, d.events, d.status, d.secret_sealed, d.created_at],
      );
      return;
    }
    case 'WebhookEndpointUpdated': {
      const d = e.data;
      await tx.query(
        `UPDATE ${t('webhook_endpoints')} SET url = coalesce($2, url), events = coalesce($3, events), status = coalesce($4, status), updated_at = $5 WHERE id = $1`,
        [d.id, d.url ?? null, d.events ?? null, d.status ?? null, d.updated_at],
      );
      return;
    }
    case 'WebhookEndpointDeleted':
      await tx.query(`DELETE FROM ${t('webhook_endpoints')} WHERE id = $1`, [e.data.id]);
  }
}

/** The select of the endpoints of the accounts in `accounts` (SQL of a text[]), as EndpointSubscription rows: as stored before a batch. */
export const endpointsOfAccountsSql = (t: TableNamer, accounts: string) =>
  `SELECT id, account_id, url, events, status FROM ${t('webhook_endpoints')} WHERE account_id = ANY(${accounts})`;

// ── The sender's, the API's and the replay worker's queries (through the view: the live generation) ──

/** What a sender needs of the endpoints it delivers to: where, with which secret, and whether still active. */
export interface SendingEndpoint {
  id: string;
  secret_sealed: string;
  status: string;
  url: string;
}

/** The endpoints with these ids, as of now (deleted ones are absent), in one read. */
export async function sendingEndpoints(db: Db, ids: readonly string[]): Promise<Map<string, SendingEndpoint>> {
  const { rows } = await db.query<SendingEndpoint>('SELECT id, secret_sealed, status, url FROM webhook_endpoints WHERE id = ANY($1::text[])', [ids]);
  return new Map(rows.map((e) => [e.id, e]));
}

/** An endpoint as the API shows it. */
export interface WebhookEndpointRow {
  id: string;
  account_id: string;
  url: string;
  events: string[];
  status: string;
  created_at: Date;
  updated_at: Date;
}

export const findWebhookEndpoint = (db: Db, accountId: string, id: string) => findInAccount<WebhookEndpointRow>(db, 'webhook_endpoints', accountId, id);

/** The account an endpoint belongs to (the operator's CLI acts as that account). */
export async function accountOfWebhookEndpoint(db: Db, id: string): Promise<string | undefined> {
  const { rows } = await db.query<{ account_id: string }>('SELECT account_id FROM webhook_endpoints WHERE id = $1', [id]);
  return rows[0]?.account_id;
}

/** The account's endpoints, oldest first. */
export async function listWebhookEndpoints(db: Db, accountId: string): Promise<WebhookEndpointRow[]> {
  const { rows } = await db.query<WebhookEndpointRow>('SELECT * FROM webhook_endpoints WHERE account_id = $1 ORDER BY id', [accountId]);
  return rows;
}

