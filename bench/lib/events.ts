// Synthetic contact events shaped like commands/contact.ts emits them (with the metadata the HTTP
// layer adds), for seeding and for the append benchmarks.
import { randomUUID } from 'node:crypto';
import type { ContactEvent } from '../../commands/contact.ts';
import type { EventMetadata, NewEvent } from '../../src/eventstore/port.ts';

export const BENCH_ACCOUNT = 'acct_01JBENCHACCOUNT0000000000';
const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Margaret', 'Dennis'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Hamilton', 'Ritchie'];

export function contactId(i: number): string {
  return `ct_01JBENCH${String(i).padStart(17, '0')}`;
}

export function metadata(i: number): EventMetadata {
  const req = `01JBENCHREQ${String(i).padStart(15, '0')}`;
  return { accountId: BENCH_ACCOUNT, actor: 'key_01JBENCHKEY000000000000000', requestId: req, correlationId: req, causationId: req };
}

export function contactCreated(i: number, at = new Date()): NewEvent {
  const data: Extract<ContactEvent, { type: 'ContactCreated' }>['data'] = {
    account_id: BENCH_ACCOUNT,
    id: contactId(i),
    fields: {
      email: `person${i}@example.com`,
      phone: `+1415555${String(i % 10000).padStart(4, '0')}`,
      first_name: FIRST[i % FIRST.length],
      last_name: LAST[(i >> 3) % LAST.length],
      country: 'US',
      language: 'en',
      timezone: 'America/Los_Angeles',
      tags: ['newsletter', i % 2 ? 'vip' : 'trial'],
    },
    custom_fields: { plan: i % 3 ? 'pro' : 'free', score: i % 100 },
    created_at: at.toISOString(),
  };
  return { type: 'ContactCreated', data, metadata: metadata(i) };
}

export function contactUpdated(i: number, n: number, at = new Date()): NewEvent {
  const data: Extract<ContactEvent, { type: 'ContactUpdated' }>['data'] = {
    account_id: BENCH_ACCOUNT,
    id: contactId(i),
    changes: { first_name: `${FIRST[(i + n) % FIRST.length]}${n}`, tags: ['newsletter', `update-${n}`] },
    custom_fields: { score: n },
    updated_at: at.toISOString(),
  };
  return { type: 'ContactUpdated', data, metadata: metadata(i) };
}

/** Encodes events the way PostgresEventStore stores them, for raw INSERT baselines. */
export function encodeRows(rows: { streamId: string; revision: number; event: NewEvent }[]) {
  return {
    sids: rows.map((r) => r.streamId),
    revs: rows.map((r) => String(r.revision)),
    ids: rows.map(() => randomUUID()),
    types: rows.map((r) => r.event.type),
    datas: rows.map((r) => JSON.stringify(r.event.data)),
    metas: rows.map((r) => JSON.stringify({ schemaVersion: 1, ...(r.event.metadata ?? {}) })),
  };
}
