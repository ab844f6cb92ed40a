// The contact_events read model's counts (README "The write path"): a contact's count of an event name
// on a day is one row, rewritten (count, first and last time) each time the contact does it again
// that day. Those columns are in no index, so the rewrite can stay on the row's page, a HOT update
// that adds no entry to either index, if the page has room: the table leaves 30% of each page free.
// Packed full by the rows' inserts, nearly every rewrite moved its row to another page and indexed it
// again (in events-ingest, 288–592 of 23,500 updates stayed in place).
import pg from 'pg';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { contactEventsProjection } from '../../projections/contact-events.ts';
import type { NewEvent } from '../../src/eventstore/port.ts';
import { ProjectionRunner } from '../../src/read-models/runner.ts';
import { openMigratedStore } from '../support/event-store.ts';
import { freshDatabase } from '../support/harness.ts';
import { liveTable } from '../support/held-read-model.ts';
import { updatesOf } from '../support/table-stats.ts';

const ACCOUNT = 'acct_01JCOUNTSINPLACE00000000000';
const CONTACTS = 2_000;
const closing: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closing.reverse()) await close();
});

const tracked = (contact: number, n: number): NewEvent => ({
  type: 'EventTracked',
  data: { account_id: ACCOUNT, contact_id: `ct_${contact}`, event_id: `evt_${contact}_${n}`, name: 'Page Viewed', properties: {}, timestamp: `2026-11-30T10:00:0${n}.000Z`, received_at: new Date().toISOString() },
  metadata: { actor: 'test' },
});

describe('contact_event_counts rows', () => {
  it('a contact doing the same thing again the same day updates its row in place (HOT)', async () => {
    const url = await freshDatabase();
    const node = await openMigratedStore(url);
    const runner = new ProjectionRunner(node.pool, node.store, [contactEventsProjection], pino({ level: 'silent' }), node.store.wakeup);
    await runner.start();
    const stats = new pg.Pool({ connectionString: url, max: 1 });
    closing.push(() => stats.end());
    const table = await liveTable(stats, 'contact_events', 'contact_event_counts');
    // no autovacuum while it is written: a vacuum or an analyze holding a snapshot keeps a page from
    // dropping the versions of the round before
    await stats.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    try {
      // a row per contact, then three rounds that each count a third of the contacts again (a few
      // rows of every page, as a batch of tracked events does)
      for (let n = 0; n < 4; n++) {
        const contacts = Array.from({ length: CONTACTS }, (_, c) => c).filter((c) => n === 0 || c % 3 === n - 1);
        await node.store.appendMany(contacts.map((c) => ({ streamId: `contact-ct_${c}`, events: [tracked(c, n)], expected: n === 0 ? ('no_stream' as const) : 0n })));
        expect(await runner.waitFor(['contact_events'], await node.store.headPosition({ includeHeldBack: true }), 30_000)).toBe(true);
      }
      expect((await stats.query(`SELECT count(*)::int AS rows, sum(count)::int AS counted FROM ${table}`)).rows[0]).toEqual({ rows: CONTACTS, counted: 2 * CONTACTS });
    } finally {
      // the sessions end: what they counted reaches the statistics (an idle one sends it up to 10 s later)
      await runner.stop();
      await node.close();
    }
    const updates = CONTACTS;
    const counted = await updatesOf(stats, table, updates);
    expect(counted.updated).toBe(updates);
    expect(counted.hot / counted.updated).toBeGreaterThanOrEqual(0.9);
  }, 90_000);
});
