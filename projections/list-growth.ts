// Read model of list growth: per account and UTC day (of each event's own timestamp), contacts
// created and deleted (or erased), and addresses that unsubscribed (reason unsubscribe or stop) or
// had such an opt-out lifted; with the typed queries GET /v1/account/list-growth reads. Rebuildable.
import type { ContactEvent } from '../commands/contact.ts';
import type { SuppressionEvent } from '../commands/suppression.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { utcDay } from './analytics.ts';
import type { Db } from './queries.ts';
import { prepared } from '../src/db/prepared.ts';
import { writeTogether } from '../src/db/together.ts';
import { ERASURE_EVENTS } from './erasures.ts';

export const GROWTH_COUNTERS = ['new_contacts', 'deleted', 'unsubscribed', 'resubscribed'] as const;
export type GrowthCounter = (typeof GROWTH_COUNTERS)[number];
export type GrowthCounts = Record<GrowthCounter, number>;

const zeroGrowth = (): GrowthCounts => ({ new_contacts: 0, deleted: 0, unsubscribed: 0, resubscribed: 0 });

/** The opt-outs a person asked for (an unsubscribe link or page, an sms STOP); not complaints, bounces or manual entries. */
export const OPT_OUT_REASONS: readonly string[] = ['unsubscribe', 'stop'];

const EVENT_TYPES = ['ContactCreated', 'ContactDeleted', 'ContactErased', 'RecipientSuppressed', 'RecipientUnsuppressed'] as const;

export const listGrowthProjection: Projection = {
  name: 'list_growth',
  version: 1,
  // list_growth_contacts: whether a contact is still there (an erasure of a deleted contact is no
  // second removal); list_growth_suppressions: what each suppression stream's live suppression is
  // for (lifting a manual one is no resubscribe)
  tables: ['list_growth_daily', 'list_growth_contacts', 'list_growth_suppressions'],
  types: EVENT_TYPES,
  flushOn: ERASURE_EVENTS,
  personalData: 'unused',
  schema: (t) => `
    CREATE TABLE ${t('list_growth_daily')} (
      account_id text NOT NULL,
      day date NOT NULL,
      ${GROWTH_COUNTERS.map((c) => `${c} integer NOT NULL DEFAULT 0`).join(',\n      ')},
      PRIMARY KEY (account_id, day)
    );
    CREATE TABLE ${t('list_growth_contacts')} (
      contact_id text PRIMARY KEY,
      account_id text NOT NULL,
      present boolean NOT NULL
    );
    CREATE TABLE ${t('list_growth_suppressions')} (
      stream_id text PRIMARY KEY,
      account_id text NOT NULL,
      reason text NOT NULL
    );`,
  async apply(tx, events, t) {
    const contactIds = new Set<string>();
    const streamIds = new Set<string>();
    for (const e of events) {
      if (e.type.startsWith('Contact')) contactIds.add((e.data as { id: string }).id);
      else streamIds.add(e.streamId);
    }
    // what the batch's contacts and suppression streams are now: one statement for both
    const contacts = new Map<string, { account_id: string; present: boolean }>();
    // a suppression stream is one address of one account; undefined: nothing suppressed now
    const suppressions = new Map<string, { account_id: string; reason: string } | undefined>();
    if (contactIds.size || streamIds.size) {
      const { rows } = await tx.query<{ kind: 'c' | 's'; id: string; account_id: string; present: boolean | null; reason: string | null }>(
        prepared(
          `SELECT 'c' AS kind, contact_id AS id, account_id, present, NULL AS reason FROM ${t('list_growth_contacts')} WHERE contact_id = ANY($1::text[])
           UNION ALL
           SELECT 's', stream_id, account_id, NULL, reason FROM ${t('list_growth_suppressions')} WHERE stream_id = ANY($2::text[])`,
          [[...contactIds], [...streamIds]],
        ),
      );
      for (const r of rows) {
        if (r.kind === 'c') contacts.set(r.id, { account_id: r.account_id, present: r.present! });
        else suppressions.set(r.id, { account_id: r.account_id, reason: r.reason! });
      }
    }
    const changedContacts = new Set<string>();
    const changedSuppressions = new Set<string>();
    const daily = new Map<string, { account_id: string; day: string; counts: GrowthCounts }>();
    const bump = (accountId: string, at: string, counter: GrowthCounter) => {
      const day = utcDay(at);
      const key = `${accountId} ${day}`;
      let entry = daily.get(key);
      if (!entry) daily.set(key, (entry = { account_id: accountId, day, counts: zeroGrowth() }));
      entry.counts[counter] += 1;
    };
    const remove = (id: string, at: string) => {
      const c = contacts.get(id);
      if (!c?.present) return;
      c.present = false;
      changedContacts.add(id);
      bump(c.account_id, at, 'deleted');
    };
    for (const recorded of events) {
      const e = recorded as unknown as ContactEvent | SuppressionEvent;
      switch (e.type) {
        case 'ContactCreated':
          if (contacts.has(e.data.id)) break;
          contacts.set(e.data.id, { account_id: e.data.account_id, present: true });
          changedContacts.add(e.data.id);
          bump(e.data.account_id, e.data.created_at, 'new_contacts');
          break;
        case 'ContactDeleted':
          remove(e.data.id, e.data.deleted_at);
          break;
        case 'ContactErased':
          remove(e.data.id, e.data.erased_at);
          break;
        case 'RecipientSuppressed':
          // (the decider appends one only when nothing is suppressed, or an erasure replacing another)
          suppressions.set(recorded.streamId, { account_id: e.data.account_id, reason: e.data.reason });
          changedSuppressions.add(recorded.streamId);
          if (OPT_OUT_REASONS.includes(e.data.reason)) bump(e.data.account_id, e.data.at, 'unsubscribed');
          break;
        case 'RecipientUnsuppressed': {
          const lifted = suppressions.get(recorded.streamId);
          if (lifted && OPT_OUT_REASONS.includes(lifted.reason)) bump(e.data.account_id, e.data.at, 'resubscribed');
          suppressions.set(recorded.streamId, undefined);
          changedSuppressions.add(recorded.streamId);
          break;
        }
      }
    }
    // every write of the batch in one statement (each table's rows once; the suppressions lifted and
    // those set are different streams)
    const contactRows = [...changedContacts];
    const live = [...changedSuppressions].filter((id) => suppressions.get(id));
    const lifted = [...changedSuppressions].filter((id) => !suppressions.get(id));
    const entries = [...daily.values()];
    const table = t('list_growth_daily');
    await writeTogether(tx, [
      contactRows.length ? {
        text: `INSERT INTO ${t('list_growth_contacts')} (contact_id, account_id, present) SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[])
               ON CONFLICT (contact_id) DO UPDATE SET present = excluded.present`,
        values: [contactRows, contactRows.map((id) => contacts.get(id)!.account_id), contactRows.map((id) => contacts.get(id)!.present)],
      } : undefined,
      lifted.length ? { text: `DELETE FROM ${t('list_growth_suppressions')} WHERE stream_id = ANY($1::text[])`, values: [lifted] } : undefined,
      live.length ? {
        text: `INSERT INTO ${t('list_growth_suppressions')} (stream_id, account_id, reason) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
               ON CONFLICT (stream_id) DO UPDATE SET reason = excluded.reason`,
        values: [live, live.map((id) => suppressions.get(id)!.account_id), live.map((id) => suppressions.get(id)!.reason)],
      } : undefined,
      entries.length ? {
        text: `INSERT INTO ${table} (account_id, day, ${GROWTH_COUNTERS.join(', ')})
               SELECT * FROM unnest($1::text[], $2::date[], ${GROWTH_COUNTERS.map((_, i) => `$${i + 3}::int[]`).join(', ')})
               ON CONFLICT (account_id, day) DO UPDATE SET ${GROWTH_COUNTERS.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', ')}`,
        values: [entries.map((d) => d.account_id), entries.map((d) => d.day), ...GROWTH_COUNTERS.map((c) => entries.map((d) => d.counts[c]))],
      } : undefined,
    ]);
  },
};

const toGrowth = (r: Record<string, unknown>): GrowthCounts => Object.fromEntries(GROWTH_COUNTERS.map((c) => [c, Number(r[c] ?? 0)])) as GrowthCounts;

/** The account's non-empty days within [from, to] (YYYY-MM-DD, inclusive). */
export async function growthByDay(db: Db, accountId: string, from: string, to: string): Promise<{ day: string; counts: GrowthCounts }[]> {
  const { rows } = await db.query<Record<string, unknown> & { day: string }>(
    `SELECT day::text AS day, ${GROWTH_COUNTERS.join(', ')} FROM list_growth_daily WHERE account_id = $1 AND day BETWEEN $2::date AND $3::date ORDER BY day`,
    [accountId, from, to],
  );
  return rows.map((r) => ({ day: r.day, counts: toGrowth(r) }));
}

/** How many of the account's contacts were there at the start of `day`: created before it, less those removed before it. */
export async function contactsBefore(db: Db, accountId: string, day: string): Promise<number> {
  const { rows } = await db.query<{ n: string | null }>(
    'SELECT sum(new_contacts - deleted)::bigint AS n FROM list_growth_daily WHERE account_id = $1 AND day < $2::date',
    [accountId, day],
  );
  return Number(rows[0]?.n ?? 0);
}
