// Fast seeding of contact events straight into the event store (appendMany), with the read model
// rows those events must produce, computed here independently of the projection.
import type { EventStore, Position } from '../../src/eventstore/port.ts';
import { comparePositions } from '../../src/eventstore/port.ts';
import { newId } from '../../src/ids.ts';

export interface ExpectedContact {
  id: string;
  email: string;
  first_name: string;
  tags: string[];
}

export interface Seeded {
  /** the live contacts the events leave, by id */
  expected: Map<string, ExpectedContact>;
  /** how many events were appended */
  events: number;
  last: Position;
}

/**
 * Appends `count` ContactCreated events for an account, then (in later transactions) renames every
 * third contact and deletes every tenth, so a replay that skipped or reordered batches shows.
 */
export async function seedContacts(store: EventStore, accountId: string, count: number, chunk = 1000): Promise<Seeded> {
  const expected = new Map<string, ExpectedContact>();
  const ids: string[] = [];
  let events = 0;
  let last: Position | undefined;
  const track = (results: { position: Position }[]) => {
    for (const r of results) if (!last || comparePositions(r.position, last) > 0) last = r.position;
  };
  const created_at = new Date('2026-01-01T00:00:00Z');
  for (let start = 0; start < count; start += chunk) {
    const batch = [];
    for (let i = start; i < Math.min(count, start + chunk); i++) {
      const id = newId('contact');
      ids.push(id);
      const contact = { id, email: `c${i}@${accountId.toLowerCase()}.example.com`, first_name: `First${i}`, tags: [i % 2 ? 'odd' : 'even'] };
      expected.set(id, contact);
      batch.push({
        streamId: `contact-${id}`,
        expected: 'no_stream' as const,
        events: [
          {
            type: 'ContactCreated',
            data: { account_id: accountId, id, fields: { email: contact.email, first_name: contact.first_name, tags: contact.tags }, custom_fields: {}, created_at: created_at.toISOString() },
            metadata: { accountId, actor: 'seed' },
          },
        ],
      });
    }
    track(await store.appendMany(batch));
    events += batch.length;
  }
  const later = async (pick: (i: number) => boolean, make: (id: string, i: number) => { type: string; data: unknown }) => {
    const chosen = ids.map((id, i) => [id, i] as const).filter(([, i]) => pick(i));
    for (let start = 0; start < chosen.length; start += chunk) {
      const batch = chosen.slice(start, start + chunk).map(([id, i]) => ({
        streamId: `contact-${id}`,
        expected: 0n,
        events: [{ ...make(id, i), metadata: { accountId, actor: 'seed' } }],
      }));
      track(await store.appendMany(batch));
      events += batch.length;
    }
  };
  const updated_at = new Date('2026-02-01T00:00:00Z').toISOString();
  await later(
    (i) => i % 3 === 0 && i % 10 !== 0,
    (id, i) => {
      const c = expected.get(id)!;
      c.first_name = `Renamed${i}`;
      c.tags = ['renamed'];
      return { type: 'ContactUpdated', data: { account_id: accountId, id, changes: { first_name: c.first_name, tags: c.tags }, custom_fields: {}, updated_at } };
    },
  );
  await later(
    (i) => i % 10 === 0,
    (id) => {
      expected.delete(id);
      return { type: 'ContactDeleted', data: { account_id: accountId, id, deleted_at: updated_at } };
    },
  );
  return { expected, events, last: last! };
}
