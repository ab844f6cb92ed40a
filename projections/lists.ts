// Read model of lists: one row per live list with its exact member count, the memberships, and the
// contacts seen deleted or erased; and the typed queries the API reads lists with.
//
// Rebuildable on its own: it reads no other read model. A contact's deletion or erasure (on the
// contact's stream) removes its memberships and lowers the counts here, and the contact is kept in
// list_gone_contacts so that a ListMemberAdded appended after it (a race between an add and a
// delete) is ignored. A deleted list takes its memberships with it. Applied event by event, in log
// order: each membership change is one statement that moves the row and the count together.
import { LIST_EVENT_TYPES, type ListEvent } from '../commands/list.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { GONE_CONTACT_EVENTS, goneContactOf, goneContactsTable, notGone, recordGoneContact } from './gone-contacts.ts';
import type { Db, IdRange } from './queries.ts';
import { ERASURE_EVENTS } from './erasures.ts';

/** A row of the lists read model as node-postgres returns it. */
export interface ListRow {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  favorite: boolean;
  member_count: number;
  created_at: Date;
  updated_at: Date;
}

/** Where a page of GET /v1/lists starts: after this list in the order pinned first, then newest id first. */
export interface ListPosition {
  favorite: boolean;
  id: string;
}

export const listsProjection: Projection = {
  name: 'lists',
  version: 1,
  tables: ['lists', 'list_members', 'list_gone_contacts'],
  types: [...LIST_EVENT_TYPES, ...GONE_CONTACT_EVENTS],
  flushOn: ERASURE_EVENTS,
  schema: (t) => `
    CREATE TABLE ${t('lists')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      name text NOT NULL,
      description text,
      favorite boolean NOT NULL DEFAULT false,
      member_count int NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('lists')}_account_order ON ${t('lists')} (account_id, favorite, id);
    CREATE TABLE ${t('list_members')} (
      list_id text NOT NULL,
      contact_id text NOT NULL,
      account_id text NOT NULL,
      added_at timestamptz NOT NULL,
      PRIMARY KEY (list_id, contact_id)
    );
    CREATE INDEX ${t('list_members')}_contact ON ${t('list_members')} (contact_id);
    ${goneContactsTable(t, 'list_gone_contacts')}`,
  async apply(tx, events, t) {
    const lists = t('lists');
    const members = t('list_members');
    const gone = t('list_gone_contacts');
    for (const recorded of events) {
      const contactId = goneContactOf(recorded);
      if (contactId !== undefined) {
        await recordGoneContact(tx, gone, contactId);
        await tx.query(
          `WITH removed AS (DELETE FROM ${members} WHERE contact_id = $1 RETURNING list_id)
           UPDATE ${lists} l SET member_count = l.member_count - r.n
           FROM (SELECT list_id, count(*)::int AS n FROM removed GROUP BY list_id) r WHERE l.id = r.list_id`,
          [contactId],
        );
        continue;
      }
      const e = recorded as unknown as ListEvent;
      switch (e.type) {
        case 'ListCreated':
          await tx.query(
            `INSERT INTO ${lists} (id, account_id, name, description, favorite, member_count, created_at, updated_at)
             VALUES ($1, $2, $3, $4, false, 0, $5, $5) ON CONFLICT (id) DO NOTHING`,
            [e.data.id, e.data.account_id, e.data.name, e.data.description, e.data.created_at],
          );
          break;
        case 'ListUpdated': {
          const c = e.data.changes;
          await tx.query(
            `UPDATE ${lists} SET name = CASE WHEN $2::boolean THEN $3::text ELSE name END, description = CASE WHEN $4::boolean THEN $5::text ELSE description END, updated_at = $6
             WHERE id = $1`,
            [e.data.id, c.name !== undefined, c.name ?? null, c.description !== undefined, c.description ?? null, e.data.updated_at],
          );
          break;
        }
        case 'ListFavoriteSet':
          await tx.query(`UPDATE ${lists} SET favorite = $2, updated_at = $3 WHERE id = $1`, [e.data.id, e.data.favorite, e.data.at]);
          break;
        case 'ListDeleted':
          await tx.query(`DELETE FROM ${members} WHERE list_id = $1`, [e.data.id]);
          await tx.query(`DELETE FROM ${lists} WHERE id = $1`, [e.data.id]);
          break;
        case 'ListMemberAdded':
          // counted only when the row is new, the list is live and the contact not seen gone
          await tx.query(
            `WITH added AS (
               INSERT INTO ${members} (list_id, contact_id, account_id, added_at)
               SELECT $1, $2, $3, $4
               WHERE EXISTS (SELECT 1 FROM ${lists} WHERE id = $1) AND ${notGone(gone, '$2')}
               ON CONFLICT (list_id, contact_id) DO NOTHING RETURNING list_id)
             UPDATE ${lists} SET member_count = member_count + 1 WHERE id IN (SELECT list_id FROM added)`,
            [e.data.id, e.data.contact_id, e.data.account_id, e.data.added_at],
          );
          break;
        case 'ListMemberRemoved':
          await tx.query(
            `WITH removed AS (DELETE FROM ${members} WHERE list_id = $1 AND contact_id = $2 RETURNING list_id)
             UPDATE ${lists} SET member_count = member_count - 1 WHERE id IN (SELECT list_id FROM removed)`,
            [e.data.id, e.data.contact_id],
          );
          break;
      }
    }
  },
};

/** The account's list with this id, if it has one. */
export async function findList(db: Db, accountId: string, id: string): Promise<ListRow | undefined> {
  const { rows } = await db.query<ListRow>('SELECT * FROM lists WHERE id = $1 AND account_id = $2', [id, accountId]);
  return rows[0];
}

/** The account's lists, pinned first, then newest id first; at most `limit`, after `after` in that order. */
export async function listLists(db: Db, accountId: string, range: { limit: number; after?: ListPosition }): Promise<ListRow[]> {
  const params: unknown[] = [accountId];
  let where = 'account_id = $1';
  if (range.after) {
    // both keys descend, so "after" in this order is a smaller (favorite, id) pair
    params.push(range.after.favorite, range.after.id);
    where += ' AND (favorite, id) < ($2::boolean, $3::text)';
  }
  params.push(range.limit);
  const { rows } = await db.query<ListRow>(`SELECT * FROM lists WHERE ${where} ORDER BY favorite DESC, id DESC LIMIT $${params.length}`, params);
  return rows;
}

/** The ids of a list's member contacts, newest contact id first, within `range`. */
export async function listMemberIds(db: Db, accountId: string, listId: string, range: IdRange): Promise<{ id: string }[]> {
  const params: unknown[] = [listId, accountId];
  let where = 'list_id = $1 AND account_id = $2';
  if (range.before !== undefined) {
    params.push(range.before);
    where += ` AND contact_id < $${params.length}`;
  }
  params.push(range.limit);
  const { rows } = await db.query<{ id: string }>(
    `SELECT contact_id AS id FROM list_members WHERE ${where} ORDER BY contact_id DESC LIMIT $${params.length}`,
    params,
  );
  return rows;
}
