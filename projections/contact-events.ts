// Read model of what contacts did (POST /v1/events): per account, event name, contact and UTC day of
// the event's timestamp, how many times and when first and last. Segments count `event.<name>` rules
// (with `count` and `within_days`) against contact_event_counts, by these very names.
//
// Rebuildable on its own: it reads no other read model. A contact's deletion or erasure drops its
// rows, and the contact is kept in contact_events_gone so that an EventTracked appended after it (an
// ingestion racing the deletion) is not counted. A batch is folded in memory and written with one
// upsert, so a projection batch of thousands of events is a handful of statements.
//
// A count's row is rewritten each time its contact does the same thing again that day; none of the
// rewritten columns is indexed, so the table leaves 30% of each page free and the rewrite stays on the
// row's page (a HOT update: no new entry in either index). README "The write path".
import { type EventTrackedData, TRACKED_EVENT_TYPES } from '../commands/contact.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { GONE_CONTACT_EVENTS, goneContactOf, goneContactsTable, notGone, recordGoneContact } from './gone-contacts.ts';
import { ERASURE_EVENTS } from './erasures.ts';

interface Tally {
  account_id: string;
  contact_id: string;
  name: string;
  day: string;
  count: number;
  first_at: string;
  last_at: string;
}

export const contactEventsProjection: Projection = {
  name: 'contact_events',
  // 2: the counts' pages keep room for their rows' rewrites (fillfactor)
  version: 2,
  tables: ['contact_event_counts', 'contact_events_gone'],
  types: [...TRACKED_EVENT_TYPES, ...GONE_CONTACT_EVENTS],
  flushOn: ERASURE_EVENTS,
  // counts by name and day: the sealed properties are never read, so never decrypted
  personalData: 'unused',
  schema: (t) => `
    CREATE TABLE ${t('contact_event_counts')} (
      account_id text NOT NULL,
      contact_id text NOT NULL,
      name text NOT NULL,
      day date NOT NULL,
      count int NOT NULL,
      first_at timestamptz NOT NULL,
      last_at timestamptz NOT NULL,
      PRIMARY KEY (account_id, name, contact_id, day)
    ) WITH (fillfactor = 70);
    CREATE INDEX ${t('contact_event_counts')}_contact ON ${t('contact_event_counts')} (contact_id);
    ${goneContactsTable(t, 'contact_events_gone')}`,
  async apply(tx, events, t) {
    const counts = t('contact_event_counts');
    const gone = t('contact_events_gone');
    const pending = new Map<string, Tally>();
    for (const e of events) {
      if (e.type === 'EventTracked') {
        const d = e.data as EventTrackedData;
        const day = d.timestamp.slice(0, 10);
        const key = `${d.account_id}\u0000${d.name}\u0000${d.contact_id}\u0000${day}`;
        const tally = pending.get(key);
        if (!tally) pending.set(key, { account_id: d.account_id, contact_id: d.contact_id, name: d.name, day, count: 1, first_at: d.timestamp, last_at: d.timestamp });
        else {
          tally.count++;
          if (d.timestamp < tally.first_at) tally.first_at = d.timestamp;
          if (d.timestamp > tally.last_at) tally.last_at = d.timestamp;
        }
        continue;
      }
      // a contact deleted or erased: its rows go, and what is tracked for it later is not counted
      const contactId = goneContactOf(e);
      if (contactId === undefined) continue;
      for (const [key, tally] of pending) if (tally.contact_id === contactId) pending.delete(key);
      await tx.query(`DELETE FROM ${counts} WHERE contact_id = $1`, [contactId]);
      await recordGoneContact(tx, gone, contactId);
    }
    if (pending.size === 0) return;
    const rows = [...pending.values()];
    // (timestamps are RFC 3339 UTC strings of the same shape, so comparing them as text orders them)
    await tx.query(
      `INSERT INTO ${counts} AS c (account_id, contact_id, name, day, count, first_at, last_at)
       SELECT u.a, u.c, u.n, u.d::date, u.k, u.f, u.l
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::timestamptz[], $7::timestamptz[]) AS u(a, c, n, d, k, f, l)
       WHERE ${notGone(gone, 'u.c')}
       ON CONFLICT (account_id, name, contact_id, day) DO UPDATE
         SET count = c.count + excluded.count, first_at = least(c.first_at, excluded.first_at), last_at = greatest(c.last_at, excluded.last_at)`,
      [
        rows.map((r) => r.account_id), rows.map((r) => r.contact_id), rows.map((r) => r.name), rows.map((r) => r.day),
        rows.map((r) => r.count), rows.map((r) => r.first_at), rows.map((r) => r.last_at),
      ],
    );
  },
};
