// handleCommand (src/command-handler.ts) against the Postgres store: a command on a stream it knows to
// be new (`fresh`) decides without reading it; should the stream exist after all, the append
// conflicts and the next attempt reads and decides on what is there.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handleCommand } from '../../src/command-handler.ts';
import type { Decider } from '../../src/decider.ts';
import { createPool } from '../../src/db/pool.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { migrate } from '../../src/schema.ts';
import { freshDatabase } from '../support/harness.ts';
import { newStreamId } from './contract.ts';

type Counted = { type: 'Counted'; data: { n: number } };
/** Each Count appends the next number: what it appends says which state it decided on. */
const counter: Decider<{ type: 'Count' }, number, Counted> = {
  initialState: 0,
  evolve: (_state, e) => e.data.n,
  decide: (_cmd, state) => [{ type: 'Counted', data: { n: state + 1 } }],
};

let url: string;
let pool: pg.Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  url = await freshDatabase();
  pool = createPool(url);
  await migrate(pool);
  store = new PostgresEventStore(pool, url);
});

afterAll(async () => {
  await store?.close();
  await pool?.end();
});

describe('handleCommand with fresh', () => {
  it('appends to a new stream without reading it first', async () => {
    const stream = newStreamId('fresh');
    const reads = vi.spyOn(store, 'readStream');
    try {
      const r = await handleCommand(store, counter, stream, { type: 'Count' }, {}, { fresh: true });
      expect(reads).not.toHaveBeenCalled();
      expect(r.revision).toBe(0n);
      expect(r.state).toBe(1);
    } finally {
      reads.mockRestore();
    }
    expect((await store.readStream(stream)).map((e) => e.data)).toEqual([{ n: 1 }]);
  });

  it('on a stream that exists after all: the append conflicts, and the next attempt reads it and decides on its state', async () => {
    const stream = newStreamId('fresh');
    await handleCommand(store, counter, stream, { type: 'Count' }, {});
    await handleCommand(store, counter, stream, { type: 'Count' }, {});
    const reads = vi.spyOn(store, 'readStream');
    try {
      const r = await handleCommand(store, counter, stream, { type: 'Count' }, {}, { fresh: true });
      expect(reads).toHaveBeenCalledTimes(1);
      expect(r.revision).toBe(2n);
      expect(r.state).toBe(3);
    } finally {
      reads.mockRestore();
    }
    expect((await store.readStream(stream)).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });
});
