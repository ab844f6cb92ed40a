// webhook_replays (a table of the webhook outbox projection; every statement on it is here): one row
// per replay job with its status from the replay's events, and the worker-owned scan state — the
// log position it has scanned through (`cursor`) and how many deliveries it made (`found`) — which
// the replay worker writes in the same transaction as the deliveries of each scan step.
//
// Why inside the outbox and not a read model of its own: like webhook_deliveries it cannot be
// rebuilt (a replayed cursor would deliver again), and a cancel must cancel the replay's pending
// deliveries in the transaction that marks it cancelled, which only the deliveries' owner can do.
import type { PlatformEvent } from '../commands/webhook-endpoint.ts';
import type { ReplayStatus, WebhookReplayEvent } from '../commands/webhook-replay.ts';
import type { TableNamer } from '../src/read-models/projection.ts';
import { type Db, Filters, type IdRange, listById } from './queries.ts';

/** A row of webhook_replays as node-postgres returns it. */
export interface WebhookReplayRow {
  id: string;
  account_id: string;
  endpoint_id: string;
  status: ReplayStatus;
  from_position: string;
  until_position: string;
  from_input: string;
  until_input: string | null;
  types: PlatformEvent[];
  /** the last log position the scan has taken in (exclusive start of the next step); null: none yet */
  cursor: string | null;
  found: number;
  cancel_reason: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

export const replaysSchema = (t: TableNamer) => `
    CREATE TABLE IF NOT EXISTS ${t('webhook_replays')} (
      id text PRIMARY KEY, account_id text NOT NULL, endpoint_id text NOT NULL, status text NOT NULL,
      from_position text NOT NULL, until_position text NOT NULL, from_input text NOT NULL, until_input text, types text[] NOT NULL,
      cursor text, found int NOT NULL DEFAULT 0, cancel_reason text,
      created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, completed_at timestamptz
    );
    CREATE INDEX IF NOT EXISTS ${t('webhook_replays')}_endpoint ON ${t('webhook_replays')} (endpoint_id, id DESC);
    CREATE INDEX IF NOT EXISTS ${t('webhook_replays')}_active ON ${t('webhook_replays')} (id) WHERE status IN ('scanning', 'delivering');`;

/** What a replay's event changes in its row (the outbox cancels the deliveries of a cancelled one). */
export async function applyReplayEvent(tx: Db, e: WebhookReplayEvent, t: TableNamer): Promise<void> {
  const replays = t('webhook_replays');
  switch (e.type) {
    case 'WebhookReplayRequested': {
      const d = e.data;
      await tx.query(
        `INSERT INTO ${replays} (id, account_id, endpoint_id, status, from_position, until_position, from_input, until_input, types, created_at, updated_at)
         VALUES ($1, $2, $3, 'scanning', $4, $5, $6, $7, $8, $9, $9) ON CONFLICT (id) DO NOTHING`,
        [d.id, d.account_id, d.endpoint_id, d.from, d.until, d.from_input, d.until_input, d.types, d.requested_at],
      );
      return;
    }
    case 'WebhookReplayScanned':
      await tx.query(`UPDATE ${replays} SET status = 'delivering', updated_at = $2 WHERE id = $1 AND status = 'scanning'`, [e.data.id, e.data.at]);
      return;
    case 'WebhookReplayCompleted':
      await tx.query(`UPDATE ${replays} SET status = 'completed', updated_at = $2, completed_at = $2 WHERE id = $1 AND status = 'delivering'`, [e.data.id, e.data.at]);
      return;
    case 'WebhookReplayCancelled':
      await tx.query(`UPDATE ${replays} SET status = 'cancelled', cancel_reason = $3, updated_at = $2, completed_at = $2 WHERE id = $1 AND status IN ('scanning', 'delivering')`, [
        e.data.id,
        e.data.at,
        e.data.reason ?? null,
      ]);
  }
}

// ── The API's and the worker's queries (through the view: always the live generation) ──

export async function findReplay(db: Db, accountId: string, endpointId: string, id: string): Promise<WebhookReplayRow | undefined> {
  const { rows } = await db.query<WebhookReplayRow>('SELECT * FROM webhook_replays WHERE id = $1 AND account_id = $2 AND endpoint_id = $3', [id, accountId, endpointId]);
  return rows[0];
}

/** A replay by id alone (the operator's CLI, which acts as the replay's account). */
export async function findReplayById(db: Db, id: string): Promise<WebhookReplayRow | undefined> {
  const { rows } = await db.query<WebhookReplayRow>('SELECT * FROM webhook_replays WHERE id = $1', [id]);
  return rows[0];
}

/** An endpoint's replays, newest first. */
export const listReplays = (db: Db, accountId: string, endpointId: string, range: IdRange) =>
  listById<WebhookReplayRow>(db, 'webhook_replays', new Filters(accountId).add((n) => `endpoint_id = $${n}`, endpointId), range);

/** The replays still scanning or delivering, oldest first: the worker's work list. */
export async function activeReplays(db: Db, limit: number): Promise<WebhookReplayRow[]> {
  const { rows } = await db.query<WebhookReplayRow>(`SELECT * FROM webhook_replays WHERE status IN ('scanning', 'delivering') ORDER BY id LIMIT $1`, [limit]);
  return rows;
}

/**
 * Inside a scan step's transaction: locks the replay's row and says whether the step may write —
 * the replay still scanning, and its cursor where the step read from (not moved by another
 * process's step meanwhile). A cancel applied later waits for this transaction; one applied
 * earlier is seen here, so no delivery is added after a cancel.
 */
export async function lockReplayAt(tx: Db, id: string, cursor: string | null): Promise<boolean> {
  const { rows } = await tx.query<{ status: ReplayStatus; cursor: string | null }>('SELECT status, cursor FROM webhook_replays WHERE id = $1 FOR UPDATE', [id]);
  return rows[0]?.status === 'scanning' && rows[0].cursor === cursor;
}

/** Inside the same transaction: the scan has taken in the log through `cursor`, making `found` more deliveries. */
export async function advanceReplay(tx: Db, id: string, cursor: string, found: number): Promise<void> {
  await tx.query('UPDATE webhook_replays SET cursor = $2, found = found + $3, updated_at = now() WHERE id = $1', [id, cursor, found]);
}
