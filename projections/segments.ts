// Read model of segments: one row per live segment with its rules, and the typed queries the API
// reads segments with. Members and counts are not kept here: they are computed at read time over
// the contacts, lists, suppressions and contact_events read models (src/segments/compile.ts).
//
// Rebuildable on its own: it reads no other read model, and holds no personal data of a contact.
import { SEGMENT_EVENT_TYPES, type SegmentEvent, type SegmentGroup } from '../commands/segment.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { type Db, Filters, type IdRange, findInAccount, listById } from './queries.ts';

/** A row of the segments read model as node-postgres returns it. */
export interface SegmentRow {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  rules: SegmentGroup;
  created_at: Date;
  updated_at: Date;
}

export const segmentsProjection: Projection = {
  name: 'segments',
  version: 1,
  tables: ['segments'],
  types: [...SEGMENT_EVENT_TYPES],
  schema: (t) => `
    CREATE TABLE ${t('segments')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      name text NOT NULL,
      description text,
      rules jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('segments')}_account_id ON ${t('segments')} (account_id, id DESC);`,
  async apply(tx, events, t) {
    const segments = t('segments');
    for (const recorded of events) {
      const e = recorded as unknown as SegmentEvent;
      switch (e.type) {
        case 'SegmentCreated':
          await tx.query(
            `INSERT INTO ${segments} (id, account_id, name, description, rules, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
             ON CONFLICT (id) DO NOTHING`,
            [e.data.id, e.data.account_id, e.data.name, e.data.description, JSON.stringify(e.data.rules), e.data.created_at],
          );
          break;
        case 'SegmentUpdated':
          await tx.query(`UPDATE ${segments} SET name = $2, description = $3, rules = $4, updated_at = $5 WHERE id = $1`, [
            e.data.id, e.data.name, e.data.description, JSON.stringify(e.data.rules), e.data.updated_at,
          ]);
          break;
        case 'SegmentDeleted':
          await tx.query(`DELETE FROM ${segments} WHERE id = $1`, [e.data.id]);
          break;
      }
    }
  },
};

/** The account's segment with this id, if it has one. */
export const findSegment = (db: Db, accountId: string, id: string) => findInAccount<SegmentRow>(db, 'segments', accountId, id);

/** The account's segments, newest first, within `range`. */
export const listSegments = (db: Db, accountId: string, range: IdRange) => listById<SegmentRow>(db, 'segments', new Filters(accountId), range);
