// Read model of contacts: one row per live contact, with the indexes the list filters use, and the
// typed queries everyone else reads contacts with. Beside it, in the same transaction, the narrow
// copy segment counts read (segment_contacts, README "Segments"): per contact only the few columns
// most rules read and the custom values as lower-cased text by slot (segment_custom_keys), derived
// in SQL from the contacts row so that it holds exactly what the rules would read there.
import type pg from 'pg';
import type { ContactEvent, ContactFields } from '../commands/contact.ts';
import { CONTACT_EVENT_TYPES } from '../commands/contact.ts';
import type { CustomFieldEvent } from '../commands/custom-fields.ts';
import { eachOnce } from '../src/db/key-lists.ts';
import type { Migration } from '../src/db/migrations.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';
import type { TableNamer } from '../src/read-models/projection.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { applyDocuments, type Row } from './document.ts';
import { type Db, Filters, type IdRange, type Recipient, escapeLike, findInAccount, listById } from './queries.ts';
import { plannedOnceFunction, prepared } from '../src/db/prepared.ts';
import { ERASURE_EVENTS } from './erasures.ts';

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
  // 3: segment_contacts and segment_custom_keys, what segment counts read (README "Segments")
  version: 3,
  tables: ['contacts', 'segment_contacts', 'segment_custom_keys'],
  // a custom field's definition gives its key a slot (definitions hold no personal data: a rebuild
  // after an erasure assigns the same slots)
  types: [...CONTACT_EVENT_TYPES, 'CustomFieldDefined'],
  flushOn: ERASURE_EVENTS,
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
    CREATE INDEX ${t('contacts')}_tags ON ${t('contacts')} USING gin (tags);
    CREATE TABLE ${t('segment_custom_keys')} (
      account_id text NOT NULL,
      key text NOT NULL,
      slot int NOT NULL,
      PRIMARY KEY (account_id, key)
    );
    CREATE TABLE ${t('segment_contacts')} (
      account_id text NOT NULL,
      id text NOT NULL,
      country text,
      language text,
      created_at timestamptz NOT NULL,
      custom text[],
      PRIMARY KEY (account_id, id)
    );`,
  async apply(tx, events, t) {
    const contactEvents = events.filter((e) => e.type !== 'CustomFieldDefined');
    // a ContactCreated makes its row from its own data (evolveRow): a create's or an import's batch reads no row for it
    if (contactEvents.length) await applyDocuments(tx, t('contacts'), CONTACT_COLUMNS, contactEvents, (e) => (e.data as { id: string }).id, evolveRow, { makesAnew: (e) => e.type === 'ContactCreated' });
    await applySegmentColumns(tx, events, t);
  },
};

/** The custom keys an event brings, in a fixed order: a definition's key, or the keys a contact event sets. */
function keysOf(e: RecordedEvent): { account: string; keys: string[] } | undefined {
  if (e.type === 'CustomFieldDefined') {
    const d = (e as unknown as CustomFieldEvent & { type: 'CustomFieldDefined' }).data;
    return { account: d.account_id, keys: [d.key] };
  }
  const c = e as unknown as ContactEvent;
  if (c.type !== 'ContactCreated' && c.type !== 'ContactUpdated') return undefined;
  const set = Object.entries(c.data.custom_fields ?? {}).filter(([, v]) => v !== null && v !== undefined).map(([k]) => k);
  return { account: c.data.account_id, keys: set.sort() };
}

/**
 * Keeps the segment columns (README "Segments"): every custom key gets the account's next slot when
 * first seen, in log order (its definition, or a contact holding it before any definition did);
 * then the rows of the contacts this batch touched are copied from their contacts rows, or removed
 * with them.
 */
async function applySegmentColumns(tx: pg.PoolClient, events: RecordedEvent[], t: TableNamer): Promise<void> {
  const keys = t('segment_custom_keys');
  const bringing = events.map(keysOf).filter((k) => k !== undefined && k.keys.length > 0) as { account: string; keys: string[] }[];
  if (bringing.length) {
    const accounts = [...new Set(bringing.map((b) => b.account))];
    const { rows } = await tx.query<{ account_id: string; key: string; slot: number }>(`SELECT account_id, key, slot FROM ${keys} WHERE account_id = ANY($1::text[])`, [accounts]);
    const known = new Set(rows.map((r) => `${r.account_id}\u0000${r.key}`));
    const last = new Map<string, number>();
    for (const r of rows) last.set(r.account_id, Math.max(last.get(r.account_id) ?? 0, r.slot));
    const added: { account_id: string; key: string; slot: number }[] = [];
    for (const b of bringing) {
      for (const key of b.keys) {
        if (known.has(`${b.account}\u0000${key}`)) continue;
        known.add(`${b.account}\u0000${key}`);
        const slot = (last.get(b.account) ?? 0) + 1;
        last.set(b.account, slot);
        added.push({ account_id: b.account, key, slot });
      }
    }
    if (added.length) {
      await tx.query(`INSERT INTO ${keys} (account_id, key, slot) SELECT account_id, key, slot FROM jsonb_to_recordset($1::jsonb) AS x(account_id text, key text, slot int)`, [
        JSON.stringify(added),
      ]);
    }
  }
  // the rows of the contacts gone in this batch go with them; those of the others are copied again
  const gone = events.filter((e) => e.type === 'ContactDeleted' || e.type === 'ContactErased').map((e) => e.data as { account_id: string; id: string });
  if (gone.length) {
    await tx.query(
      `DELETE FROM ${t('segment_contacts')} s USING unnest($1::text[], $2::text[]) AS u(account_id, id)
       WHERE s.account_id = u.account_id AND s.id = u.id AND NOT EXISTS (SELECT 1 FROM ${t('contacts')} c WHERE c.id = u.id)`,
      [gone.map((g) => g.account_id), gone.map((g) => g.id)],
    );
  }
  const written = [...new Set(events.filter((e) => e.type === 'ContactCreated' || e.type === 'ContactUpdated').map((e) => (e.data as { id: string }).id))];
  if (written.length) await copySegmentRows(tx, t, written);
}

/**
 * Copies the segment rows of these contacts from their contacts rows (a contact with no row is left
 * out). The bench seeds with it too. The custom values are `lower(custom_fields ->> key)` at the
 * key's slot: what a text rule compares.
 */
export async function copySegmentRows(tx: pg.ClientBase | pg.Pool, t: TableNamer, ids: readonly string[]): Promise<void> {
  const [contacts, segmentContacts, keys] = [t('contacts'), t('segment_contacts'), t('segment_custom_keys')];
  await tx.query(prepared(
    `INSERT INTO ${segmentContacts} (account_id, id, country, language, created_at, custom)
     SELECT c.account_id, c.id, c.country, c.language, c.created_at,
       (SELECT array_agg(lower(c.custom_fields ->> k.key) ORDER BY k.slot) FROM ${keys} k
        WHERE k.account_id = c.account_id
          AND k.slot <= (SELECT max(h.slot) FROM ${keys} h WHERE h.account_id = c.account_id AND c.custom_fields ->> h.key IS NOT NULL))
     FROM ${contacts} c WHERE c.id = ANY($1::text[])
     ON CONFLICT (account_id, id) DO UPDATE SET country = excluded.country, language = excluded.language, created_at = excluded.created_at, custom = excluded.custom`,
    [ids],
  ));
}

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
 * The account's contacts whose email or phone is one of these addresses (emails lowercased, phones in
 * E.164: as contacts keep them), with every field: what templates read for a send's recipient.
 */
export async function contactsWithAddresses(db: Db, accountId: string, addresses: readonly string[]): Promise<ContactRow[]> {
  if (addresses.length === 0) return [];
  const { rows } = await db.query<ContactRow>(
    `SELECT * FROM contacts WHERE account_id = $1 AND email = ANY($2::text[])
     UNION ALL SELECT * FROM contacts WHERE account_id = $1 AND phone = ANY($2::text[])`,
    [accountId, [...new Set(addresses)]],
  );
  return rows;
}

/**
 * The time zone of each recipient that is a contact's email or phone and has one (the lowest contact
 * id wins when several match), for quiet hours. A function planned once per session
 * (RECIPIENT_TIMEZONES_FUNCTION).
 */
export async function recipientTimezones(db: Db, recipients: readonly Recipient[]): Promise<(Recipient & { timezone: string })[]> {
  const { rows } = await db.query<Recipient & { timezone: string }>(prepared(
    'SELECT o_account_id AS account_id, o_address AS address, o_timezone AS timezone FROM recipient_timezones($1::text[], $2::text[], $3::text[])',
    [recipients.map((r) => r.account_id), recipients.map((r) => r.address), eachOnce(recipients.map((r) => r.account_id))],
  ));
  return rows;
}

/**
 * recipientTimezones' statement, planned once per session (plannedOnceFunction): for each recipient,
 * a probe of the email index and one of the phone index, each by account and address (README "The
 * write path": a batch reads only the rows it names). The probes are the only plan a lateral join
 * leaves: matched by email OR phone in one join, a plan made without statistics (the dispatcher's
 * first marketing batch after an import, before autovacuum has analyzed the contacts) probed the
 * account alone for each recipient and filtered its contacts by address, every contact of the
 * account read once per recipient. `p_each_account` is no longer read (kept: the signature callers use).
 */
const RECIPIENT_TIMEZONES_FUNCTION = plannedOnceFunction(
  'recipient_timezones(p_accounts text[], p_addresses text[], p_each_account text[])',
  'o_account_id text, o_address text, o_timezone text',
  `SELECT DISTINCT ON (u.a, u.addr) u.a, u.addr, m.timezone
     FROM unnest(p_accounts, p_addresses) AS u(a, addr)
     CROSS JOIN LATERAL (
       SELECT c.id, c.timezone FROM contacts c WHERE c.account_id = u.a AND c.email = u.addr AND c.timezone IS NOT NULL
       UNION ALL
       SELECT c.id, c.timezone FROM contacts c WHERE c.account_id = u.a AND c.phone = u.addr AND c.timezone IS NOT NULL
     ) m
    ORDER BY u.a, u.addr, m.id`,
);

export const CONTACT_LOOKUP_MIGRATIONS: Migration[] = [
  { id: 62, name: "contacts: recipients' time zones read by a function planned once per session", sql: RECIPIENT_TIMEZONES_FUNCTION },
  { id: 66, name: "contacts: recipients' time zones probed by email and by phone, whatever the planner knows of the contacts", sql: RECIPIENT_TIMEZONES_FUNCTION },
];
