// Read model of contacts: one row per live contact, with the indexes the list filters use.
import type { ContactEvent, ContactFields } from '../commands/contact.ts';
import { CONTACT_EVENT_TYPES } from '../commands/contact.ts';
import type { Projection } from '../src/projection.ts';
import { applyDocuments, type Row } from './document.ts';

export const CONTACT_COLUMNS = [
  'id', 'account_id', 'email', 'phone', 'first_name', 'last_name', 'country', 'language', 'timezone',
  'external_id', 'tags', 'custom_fields', 'created_at', 'updated_at', 'bounce_count', 'last_bounced_at',
] as const;

export const contactsProjection: Projection = {
  name: 'contacts',
  version: 1,
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
    CREATE INDEX ${t('contacts')}_tags ON ${t('contacts')} USING gin (tags);`,
  async apply(tx, events, t) {
    await applyDocuments(tx, t('contacts'), CONTACT_COLUMNS, events, (e) => (e.data as { id: string }).id, evolveRow);
  },
};

function evolveRow(row: Row | undefined, recorded: { type: string; data: unknown }): Row | undefined {
  const e = recorded as ContactEvent;
  switch (e.type) {
    case 'ContactCreated': {
      const f: ContactFields = e.data.fields;
      return {
        id: e.data.id,
        account_id: e.data.account_id,
        email: f.email ?? null,
        phone: f.phone ?? null,
        first_name: f.first_name ?? null,
        last_name: f.last_name ?? null,
        country: f.country ?? null,
        language: f.language ?? null,
        timezone: f.timezone ?? null,
        external_id: f.external_id ?? null,
        tags: f.tags ?? [],
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
      return undefined;
    case 'ContactBounced':
      return row && { ...row, bounce_count: Number(row.bounce_count ?? 0) + 1, last_bounced_at: e.data.at };
  }
  return row;
}
