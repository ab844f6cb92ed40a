// Every read model that applies an erasure waits for that batch's WAL flush (Projection.flushOn;
// README "The write path"): the personal data an erasure blanks or drops must not be back after a
// crash, not even until the runner applies the erasure again. A read model added later that
// follows erasures and forgets it fails here.
import { describe, expect, it } from 'vitest';
import { ERASURE_EVENTS } from '../../projections/erasures.ts';
import { ALL_PROJECTIONS } from '../../projections/index.ts';
import { DURABLE_COMMIT, batchCommitMode } from '../../src/read-models/state.ts';

describe('the commit of a read model batch with an erasure', () => {
  const applying = ALL_PROJECTIONS.filter((p) => p.types.some((t) => (ERASURE_EVENTS as readonly string[]).includes(t)));

  it('is found among the read models (the test looks at something)', () => {
    expect(applying.map((p) => p.name).sort()).toEqual(
      ['contact_events', 'contacts', 'conversations', 'list_growth', 'lists', 'messages', 'push_devices', 'suppressions', 'webhook_outbox'].sort(),
    );
  });

  it.each(applying.map((p) => [p.name, p] as const))('%s waits for the flush of a batch with an erasure, and only of such a batch (or always)', (_name, p) => {
    for (const type of p.types.filter((t) => (ERASURE_EVENTS as readonly string[]).includes(t))) {
      expect(batchCommitMode({ projection: p, events: [{ type: 'SomethingElse' }, { type }] })).toBe(DURABLE_COMMIT);
    }
    const others = p.types.filter((t) => !(ERASURE_EVENTS as readonly string[]).includes(t)).map((type) => ({ type }));
    expect(batchCommitMode({ projection: p, events: others })).toBe(p.rebuildable === false ? DURABLE_COMMIT : 'SET LOCAL synchronous_commit = off;');
  });
});
