// Read model of contacts: one row per live contact, with the indexes the list filters use, and the
// typed queries everyone else reads contacts with.
import type { ContactEvent, ContactFields } from '../commands/contact.ts';
import { CONTACT_EVENT_TYPES } from '../commands/contact.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { applyDocuments, type Row } from './document.ts';
import { type Db, Filters, type IdRange, type Recipient, escapeLike, findInAccount, listById } from './queries.ts';

/** A row of the contacts read model as node-postgres returns it. */
export interface ContactRow {
  id: string;
  account_id: string;
  email: string | null;
  phone: string | null;
  first_name: string | null;
  last_name: string | null;
  country: string | null;
  language: string | null;
  timezone: string | null;
  external_id: string | null;
  tags: string[];
  custom_fields: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  bounce_count: number;
  last_bounced_at: Date | null;
}

export const CONTACT_COLUMNS = [
  'id', 'account_id', 'email', 'phone', 'first_name', 'last_name', 'country', 'language', 'timezone',
  'external_id', 'tags', 'custom_fields', 'created_at', 'updated_at', 'bounce_count', 'last_bounced_at',
] as const satisfies readonly (keyof ContactRow)[];

/** The standard fields as columns (absent is null, no tags is an empty list): the row and the API view share them. */
export function standardColumns(f: ContactFields) {
  return {
    email: f.email ?? null,
    phone: f.phone ?? null,
    first_name: f.first_name ?? null,
    last_name: f.last_name ?? null,
    country: f.country ?? null,
    language: f.language ?? null,
    timezone: f.timezone ?? null,
    external_id: f.external_id ?? null,
    tags: f.tags ?? [],
  };
}

export const contactsProjection: Projection = {
  name: 'contacts',
  // 2: an index on external_id (the import and the events look contacts up by it)
  version: 2,
  tables: ['contacts'],
  types: [...CONTACT_EVENT_TYPES],
  schema: (t) => `
    CREATE TABLE ${t('contacts')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      email text,
      phone text,
      first_name text,
      last_name text,
      country text,
      language text,
      timezone text,
      external_id text,
      tags text[] NOT NULL DEFAULT '{}',
      custom_fields jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      bounce_count int NOT NULL DEFAULT 0,
      last_bounced_at timestamptz
    );
    CREATE INDEX ${t('contacts')}_account_id ON ${t('contacts')} (account_id, id DESC);
    CREATE INDEX ${t('contacts')}_email ON ${t('contacts')} (account_id, email);
    CREATE INDEX ${t('contacts')}_phone ON ${t('contacts')} (account_id, phone);
    CREATE INDEX ${t('contacts')}_external_id ON ${t('contacts')} (account_id, external_id) WHERE external_id IS NOT NULL;
    CREATE INDEX ${t('contacts')}_tags ON ${t('contacts')} USING gin (tags);`,
  async apply(tx, events, t) {
    await applyDocuments(tx, t('contacts'), CONTACT_COLUMNS, events, (e) => (e.data as { id: string }).id, evolveRow);
  },
};

function evolveRow(row: Row | undefined, recorded: { type: string; data: unknown }): Row | undefined {
  const e = recorded as ContactEvent;
  switch (e.type) {
    case 'ContactCreated': {
      return {
        id: e.data.id,
        account_id: e.data.account_id,
        ...standardColumns(e.data.fields),
        custom_fields: e.data.custom_fields ?? {},
        created_at: e.data.created_at,
        updated_at: e.data.created_at,
        bounce_count: 0,
        last_bounced_at: null,
      };
    }
    case 'ContactUpdated': {
      if (!row) return row;
      const next: Row = { ...row, updated_at: e.data.updated_at };
      for (const [k, v] of Object.entries(e.data.changes)) next[k] = k === 'tags' ? (v ?? []) : (v ?? null);
      const custom = { ...((row.custom_fields as Record<string, unknown>) ?? {}) };
      for (const [k, v] of Object.entries(e.data.custom_fields)) {
        if (v === null) delete custom[k];
        else custom[k] = v;
      }
      next.custom_fields = custom;
      return next;
    }
    case 'ContactDeleted':
    case 'ContactErased':
      return undefined;
    case 'ContactBounced':
      return row && { ...row, bounce_count: Number(row.bounce_count ?? 0) + 1, last_bounced_at: e.data.at };
  }
  return row;
}

export const findContact = (db: Db, accountId: string, id: string) => findInAccount<ContactRow>(db, 'contacts', accountId, id);

/** The account's contacts with these ids (those it has), in no particular order. */
export async function findContacts(db: Db, accountId: string, ids: readonly string[]): Promise<ContactRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<ContactRow>('SELECT * FROM contacts WHERE account_id = $1 AND id = ANY($2::text[])', [accountId, ids]);
  return rows;
}

/** The list filters of GET /v1/contacts; `q` matches names, email, phone and external id (case-insensitive). */
export interface ContactFilter {
  email?: string;
  phone?: string;
  tag?: string;
  q?: string;
}

export function listContacts(db: Db, accountId: string, filter: ContactFilter, range: IdRange): Promise<ContactRow[]> {
  const f = new Filters(accountId).compare('email', '=', filter.email).compare('phone', '=', filter.phone);
  if (filter.tag) f.add((n) => `tags @> ARRAY[$${n}]::text[]`, filter.tag);
  if (filter.q) {
    f.add(
      (n) => `(email ILIKE $${n} OR first_name ILIKE $${n} OR last_name ILIKE $${n} OR phone ILIKE $${n} OR external_id ILIKE $${n}
               OR (coalesce(first_name,'') || ' ' || coalesce(last_name,'')) ILIKE $${n})`,
      `%${escapeLike(filter.q)}%`,
    );
  }
  return listById<ContactRow>(db, 'contacts', f, range);
}

/**
 * One page of the account's contacts (or of one list's members), oldest id first, with ids after
 * `after`: the keyset pages the export walks (never OFFSET).
 */
export async function contactsInIdOrder(db: Db, accountId: string, page: { listId?: string; after?: string; limit: number }): Promise<ContactRow[]> {
  const after = page.after ?? '';
  if (page.listId !== undefined) {
    const { rows } = await db.query<ContactRow>(
      `SELECT c.* FROM list_members m JOIN contacts c ON c.id = m.contact_id AND c.account_id = m.account_id
       WHERE m.list_id = $1 AND m.account_id = $2 AND m.contact_id > $3 ORDER BY m.contact_id LIMIT $4`,
      [page.listId, accountId, after, page.limit],
    );
    return rows;
  }
  const { rows } = await db.query<ContactRow>('SELECT * FROM contacts WHERE account_id = $1 AND id > $2 ORDER BY id LIMIT $3', [accountId, after, page.limit]);
  return rows;
}

/** The account's contacts carrying `tag`, oldest id first, at most `limit`. */
export async function contactsWithTag(db: Db, accountId: string, tag: string, limit: number): Promise<Pick<ContactRow, 'id' | 'email' | 'phone'>[]> {
  const { rows } = await db.query<Pick<ContactRow, 'id' | 'email' | 'phone'>>(
    'SELECT id, email, phone FROM contacts WHERE account_id = $1 AND tags @> ARRAY[$2]::text[] ORDER BY id LIMIT $3',
    [accountId, tag, limit],
  );
  return rows;
}

/** The ids of the account's contacts with this email (lower case, as stored). */
export async function contactIdsWithEmail(db: Db, accountId: string, email: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM contacts WHERE account_id = $1 AND email = $2', [accountId, email]);
  return rows.map((r) => r.id);
}

/** The ids of the account's contacts with each of these external ids, lowest id first (an external id is not unique: several may share one). */
export async function contactIdsByExternalId(db: Db, accountId: string, externalIds: readonly string[]): Promise<Map<string, string[]>> {
  const byExternalId = new Map<string, string[]>();
  if (externalIds.length === 0) return byExternalId;
  const { rows } = await db.query<{ id: string; external_id: string }>(
    'SELECT id, external_id FROM contacts WHERE account_id = $1 AND external_id = ANY($2::text[]) ORDER BY id',
    [accountId, [...new Set(externalIds)]],
  );
  for (const r of rows) byExternalId.set(r.external_id, [...(byExternalId.get(r.external_id) ?? []), r.id]);
  return byExternalId;
}

/** The ids of the account's contacts with this email or phone number (as stored). */
export async function contactIdsWithAddress(db: Db, accountId: string, address: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM contacts WHERE account_id = $1 AND (email = $2 OR phone = $2) ORDER BY id', [accountId, address]);
  return rows.map((r) => r.id);
}

/**
 * The time zone of each recipient that is a contact's email or phone and has one (the lowest contact
 * id wins when several match), for quiet hours.
 */
export async function recipientTimezones(db: Db, recipients: readonly Recipient[]): Promise<(Recipient & { timezone: string })[]> {
  const { rows } = await db.query<Recipient & { timezone: string }>(
    `SELECT DISTINCT ON (c.account_id, u.addr) c.account_id, u.addr AS address, c.timezone FROM contacts c
     JOIN unnest($1::text[], $2::text[]) AS u(a, addr) ON c.account_id = u.a AND (c.email = u.addr OR c.phone = u.addr)
     WHERE c.timezone IS NOT NULL ORDER BY c.account_id, u.addr, c.id`,
    [recipients.map((r) => r.account_id), recipients.map((r) => r.address)],
  );
  return rows;
}
