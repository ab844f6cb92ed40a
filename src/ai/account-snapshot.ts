// The figures the AI coach advises on: the account's messages of the last 30 days by channel and
// status, its contacts and its suppressions by reason. Read-only queries over the messages, contacts
// and suppressions read models (their projections have no such aggregate queries), kept here so that
// they change with the coach; they aggregate only, never read a person's data.
import type { Db } from '../../projections/queries.ts';

export const SNAPSHOT_DAYS = 30;

export interface ChannelCounts {
  scheduled: number;
  queued: number;
  sent: number;
  delivered: number;
  failed: number;
  cancelled: number;
}

export interface AccountSnapshot {
  period_days: number;
  messages: { total: number; marketing: number; transactional: number; by_channel: Record<string, ChannelCounts> };
  contacts: number;
  suppressions: { total: number; by_reason: Record<string, number> };
}

const emptyCounts = (): ChannelCounts => ({ scheduled: 0, queued: 0, sent: 0, delivered: 0, failed: 0, cancelled: 0 });

export async function accountSnapshot(db: Db, accountId: string, now: Date): Promise<AccountSnapshot> {
  const since = new Date(now.getTime() - SNAPSHOT_DAYS * 86_400_000);
  const [messages, contacts, suppressions] = await Promise.all([
    db.query<{ channel: string; status: string; marketing: boolean; n: string }>(
      'SELECT channel, status, marketing, count(*) AS n FROM messages WHERE account_id = $1 AND created_at >= $2 GROUP BY channel, status, marketing',
      [accountId, since],
    ),
    db.query<{ n: string }>('SELECT count(*) AS n FROM contacts WHERE account_id = $1', [accountId]),
    db.query<{ reason: string; n: string }>('SELECT reason, count(*) AS n FROM suppressions WHERE account_id = $1 GROUP BY reason', [accountId]),
  ]);
  const snapshot: AccountSnapshot = {
    period_days: SNAPSHOT_DAYS,
    messages: { total: 0, marketing: 0, transactional: 0, by_channel: {} },
    contacts: Number(contacts.rows[0]?.n ?? 0),
    suppressions: { total: 0, by_reason: {} },
  };
  for (const row of messages.rows) {
    const n = Number(row.n);
    const counts = (snapshot.messages.by_channel[row.channel] ??= emptyCounts());
    if (row.status in counts) counts[row.status as keyof ChannelCounts] += n;
    snapshot.messages.total += n;
    if (row.marketing) snapshot.messages.marketing += n;
    else snapshot.messages.transactional += n;
  }
  for (const row of suppressions.rows) {
    snapshot.suppressions.by_reason[row.reason] = Number(row.n);
    snapshot.suppressions.total += Number(row.n);
  }
  return snapshot;
}
