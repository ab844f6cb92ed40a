// Read model of message analytics: per account, UTC day (of each event's own `at`) and channel, how
// many messages were sent, delivered, failed, bounced, complained about and clicked, and the typed
// queries the analytics and deliverability endpoints read it with. Rebuildable on its own.
import { CHANNELS, type Channel, type MessageEvent, type StatusFacts, statusEventsCarryFacts } from '../commands/message.ts';
import type { SuppressionEvent } from '../commands/suppression.ts';
import { writeTogether } from '../src/db/together.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';
import type { Projection } from '../src/read-models/projection.ts';
import type { Db } from './queries.ts';

/** The counters of one (account, day, channel). */
export const DAILY_COUNTERS = ['sent', 'delivered', 'failed', 'bounced', 'complained', 'clicked', 'unique_clicks', 'opened', 'unique_opens', 'machine_opens'] as const;
export type DailyCounter = (typeof DAILY_COUNTERS)[number];
export type Counts = Record<DailyCounter, number>;

export const zeroCounts = (): Counts => ({ sent: 0, delivered: 0, failed: 0, bounced: 0, complained: 0, clicked: 0, unique_clicks: 0, opened: 0, unique_opens: 0, machine_opens: 0 });

/**
 * What the read model keeps of a message accepted before its status events carried its channel
 * (StatusFacts, commands/message.ts): those later events name no channel (nor, for clicks, whether
 * it is the first), and the outcome makes a repeated delivery report count once. A message accepted
 * since has no row: each of its status events names its channel, and the decider writes one
 * MessageSent and at most one outcome per message, and marks its first click.
 */
interface MessageFacts {
  message_id: string;
  account_id: string;
  channel: Channel;
  sent: boolean;
  outcome: 'delivered' | 'failed' | null;
  clicked: boolean;
}

const EVENT_TYPES = ['MessageAccepted', 'MessageSent', 'MessageDelivered', 'MessageFailed', 'MessageLinkClicked', 'MessageOpened', 'RecipientSuppressed'] as const;

/** The UTC date of an RFC 3339 timestamp. */
export const utcDay = (at: string | Date): string => new Date(at).toISOString().slice(0, 10);

export const analyticsProjection: Projection = {
  name: 'analytics',
  // 2: opens (opened, unique_opens, machine_opens)
  version: 2,
  tables: ['analytics_messages', 'analytics_daily'],
  types: EVENT_TYPES,
  // account, channel, ids and times are all in clear: no key is looked up, nothing is decrypted
  personalData: 'unused',
  schema: (t) => `
    CREATE TABLE ${t('analytics_messages')} (
      message_id text PRIMARY KEY,
      account_id text NOT NULL,
      channel text NOT NULL,
      sent boolean NOT NULL,
      outcome text,
      clicked boolean NOT NULL
    );
    CREATE TABLE ${t('analytics_daily')} (
      account_id text NOT NULL,
      day date NOT NULL,
      channel text NOT NULL,
      ${DAILY_COUNTERS.map((c) => `${c} integer NOT NULL DEFAULT 0`).join(',\n      ')},
      PRIMARY KEY (account_id, day, channel)
    );`,
  async apply(tx, events, t) {
    // a batch is folded in memory from the rows it touches, then written in two statements; only
    // events without StatusFacts (and complaints) need a row: a message accepted with them keeps none
    const ids = new Set<string>();
    for (const e of events) {
      if (carriesFacts(e) || (e.type === 'MessageAccepted' && statusEventsCarryFacts(e))) continue;
      const id = messageIdOf(e);
      if (id) ids.add(id);
    }
    const facts = new Map<string, MessageFacts>();
    if (ids.size) {
      const { rows } = await tx.query<MessageFacts>(`SELECT * FROM ${t('analytics_messages')} WHERE message_id = ANY($1::text[])`, [[...ids]]);
      for (const r of rows) facts.set(r.message_id, r);
    }
    const changed = new Set<string>();
    const daily = new Map<string, { account_id: string; day: string; channel: string; counts: Counts }>();
    const bump = (accountId: string, at: string, channel: string, ...counters: DailyCounter[]) => {
      const day = utcDay(at);
      const key = `${accountId} ${day} ${channel}`;
      let entry = daily.get(key);
      if (!entry) daily.set(key, (entry = { account_id: accountId, day, channel, counts: zeroCounts() }));
      for (const c of counters) entry.counts[c] += 1;
    };
    for (const recorded of events) {
      if (recorded.type === 'RecipientSuppressed') {
        const s = (recorded as unknown as Extract<SuppressionEvent, { type: 'RecipientSuppressed' }>).data;
        // a complaint comes only from email feedback; it counts on the channel of the message it names
        if (s.reason !== 'complaint') continue;
        const message = s.message_id ? facts.get(s.message_id) : undefined;
        bump(s.account_id, s.at, message?.channel ?? 'email', 'complained');
        continue;
      }
      const e = recorded as unknown as MessageEvent;
      if (e.type === 'MessageAccepted') {
        if (statusEventsCarryFacts(recorded) || facts.has(e.data.id)) continue;
        facts.set(e.data.id, { message_id: e.data.id, account_id: e.data.account_id, channel: e.data.channel, sent: false, outcome: null, clicked: false });
        changed.add(e.data.id);
        continue;
      }
      const channel = (e.data as StatusFacts).channel;
      if (channel) {
        countStatus(e, channel, (...counters) => bump(e.data.account_id, e.data.at, channel, ...counters));
        continue;
      }
      // the stream's MessageAccepted comes first in the log, so a message unknown here is not one
      const m = facts.get(e.data.id);
      if (!m) continue;
      switch (e.type) {
        case 'MessageSent':
          if (m.sent) break;
          m.sent = true;
          changed.add(m.message_id);
          countStatus(e, m.channel, (...counters) => bump(m.account_id, e.data.at, m.channel, ...counters));
          break;
        case 'MessageDelivered':
        case 'MessageFailed':
          // the first outcome is the message's: delivered and failed are both final (commands/message.ts
          // records no report after either), so a repeat never counts twice and nothing moves between them
          if (m.outcome) break;
          m.outcome = e.type === 'MessageDelivered' ? 'delivered' : 'failed';
          changed.add(m.message_id);
          countStatus(e, m.channel, (...counters) => bump(m.account_id, e.data.at, m.channel, ...counters));
          break;
        case 'MessageLinkClicked': {
          const first = !m.clicked;
          if (first) {
            m.clicked = true;
            changed.add(m.message_id);
          }
          countStatus({ ...e, data: { ...e.data, first } }, m.channel, (...counters) => bump(m.account_id, e.data.at, m.channel, ...counters));
          break;
        }
        case 'MessageOpened':
          // the event says whether it is the first by a reader
          countStatus(e, m.channel, (...counters) => bump(m.account_id, e.data.at, m.channel, ...counters));
          break;
      }
    }
    const rows = [...changed].map((id) => facts.get(id)!);
    const entries = [...daily.values()];
    const table = t('analytics_daily');
    // the facts and the day's counters in one statement
    await writeTogether(tx, [
      rows.length
        ? {
            text: `INSERT INTO ${t('analytics_messages')} (message_id, account_id, channel, sent, outcome, clicked)
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[], $5::text[], $6::boolean[])
             ON CONFLICT (message_id) DO UPDATE SET sent = excluded.sent, outcome = excluded.outcome, clicked = excluded.clicked`,
            values: [rows.map((r) => r.message_id), rows.map((r) => r.account_id), rows.map((r) => r.channel), rows.map((r) => r.sent), rows.map((r) => r.outcome), rows.map((r) => r.clicked)],
          }
        : undefined,
      entries.length
        ? {
            text: `INSERT INTO ${table} (account_id, day, channel, ${DAILY_COUNTERS.join(', ')})
             SELECT * FROM unnest($1::text[], $2::date[], $3::text[], ${DAILY_COUNTERS.map((_, i) => `$${i + 4}::int[]`).join(', ')})
             ON CONFLICT (account_id, day, channel) DO UPDATE SET ${DAILY_COUNTERS.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', ')}`,
            values: [entries.map((d) => d.account_id), entries.map((d) => d.day), entries.map((d) => d.channel), ...DAILY_COUNTERS.map((c) => entries.map((d) => d.counts[c]))],
          }
        : undefined,
    ]);
  },
};

const STATUS_TYPES = new Set(['MessageSent', 'MessageDelivered', 'MessageFailed', 'MessageLinkClicked', 'MessageOpened']);

/** A status event that names its message's channel (StatusFacts): counted without a row. */
const carriesFacts = (e: RecordedEvent) => STATUS_TYPES.has(e.type) && !!(e.data as StatusFacts).channel;

/**
 * The counters one status event moves, once it is known to be the message's first of its kind (its
 * one MessageSent, its first outcome; a click says whether it is the first).
 */
function countStatus(e: MessageEvent, channel: Channel, count: (...counters: DailyCounter[]) => void): void {
  switch (e.type) {
    case 'MessageSent':
      count('sent');
      return;
    case 'MessageDelivered':
      count('delivered');
      return;
    case 'MessageFailed':
      // an email that a report failed is a bounce (a rejection at the provider's door is not)
      count('failed', ...(e.data.stage === 'report' && channel === 'email' ? (['bounced'] as const) : []));
      return;
    case 'MessageLinkClicked':
      count('clicked', ...(e.data.first ? (['unique_clicks'] as const) : []));
      return;
    case 'MessageOpened':
      // a machine's fetch is counted apart, never as a reader's open
      if (e.data.machine) count('machine_opens');
      else count('opened', ...(e.data.first ? (['unique_opens'] as const) : []));
      return;
  }
}

/** The message an event is about (a complaint names the message that drew it). */
function messageIdOf(e: RecordedEvent): string | undefined {
  if (e.type === 'RecipientSuppressed') return (e.data as { message_id?: string }).message_id;
  return (e.data as { id?: string }).id;
}

const sums = DAILY_COUNTERS.map((c) => `sum(${c})::bigint AS ${c}`).join(', ');
const toCounts = (r: Record<string, unknown>): Counts => Object.fromEntries(DAILY_COUNTERS.map((c) => [c, Number(r[c] ?? 0)])) as Counts;

/** The account's non-empty days and channels within [from, to] (YYYY-MM-DD, inclusive), optionally of one channel. */
export async function dailyCounts(db: Db, accountId: string, from: string, to: string, channel?: Channel): Promise<{ day: string; channel: Channel; counts: Counts }[]> {
  const { rows } = await db.query<Record<string, unknown> & { day: string; channel: Channel }>(
    `SELECT day::text AS day, channel, ${DAILY_COUNTERS.join(', ')} FROM analytics_daily
     WHERE account_id = $1 AND day BETWEEN $2::date AND $3::date AND ($4::text IS NULL OR channel = $4)
     ORDER BY day, channel`,
    [accountId, from, to, channel ?? null],
  );
  return rows.map((r) => ({ day: r.day, channel: r.channel, counts: toCounts(r) }));
}

/** Per channel (every one named, zeros where nothing happened), the sums over the days [from, to]. */
export async function countsByChannel(db: Db, accountId: string, from: string, to: string): Promise<Record<Channel, Counts>> {
  const { rows } = await db.query<Record<string, unknown> & { channel: Channel }>(
    `SELECT channel, ${sums} FROM analytics_daily WHERE account_id = $1 AND day BETWEEN $2::date AND $3::date GROUP BY channel`,
    [accountId, from, to],
  );
  const out = Object.fromEntries(CHANNELS.map((c) => [c, zeroCounts()])) as Record<Channel, Counts>;
  for (const r of rows) if ((CHANNELS as readonly string[]).includes(r.channel)) out[r.channel] = toCounts(r);
  return out;
}
