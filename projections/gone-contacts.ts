// Contacts a read model has seen deleted or erased. A read model that keeps rows per contact drops
// them on the contact's ContactDeleted or ContactErased and keeps the contact in a table of its own
// (so that it stays rebuildable on its own), so that an event for the contact appended after its
// deletion (a race with it) is not applied.
import type { CONTACT_EVENT_TYPES } from '../commands/contact.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';
import type { TableNamer } from '../src/read-models/projection.ts';
import type { Db } from './queries.ts';

export const GONE_CONTACT_EVENTS = ['ContactDeleted', 'ContactErased'] as const satisfies readonly (typeof CONTACT_EVENT_TYPES)[number][];

/** The contact an event says is gone (deleted or erased); undefined for any other event. */
export const goneContactOf = (e: RecordedEvent): string | undefined =>
  (GONE_CONTACT_EVENTS as readonly string[]).includes(e.type) ? (e.data as { id: string }).id : undefined;

/** The DDL of the read model's table of gone contacts, `table`. */
export const goneContactsTable = (t: TableNamer, table: string) => `CREATE TABLE ${t(table)} (contact_id text PRIMARY KEY);`;

/** Keeps the contact in the generation's table of gone contacts, `gone`. */
export async function recordGoneContact(tx: Db, gone: string, contactId: string): Promise<void> {
  await tx.query(`INSERT INTO ${gone} (contact_id) VALUES ($1) ON CONFLICT DO NOTHING`, [contactId]);
}

/** SQL true when the contact `contactId` (an SQL expression) is not in the table of gone contacts `gone`. */
export const notGone = (gone: string, contactId: string) => `NOT EXISTS (SELECT 1 FROM ${gone} WHERE contact_id = ${contactId})`;
