// A small batch's statements run on generic plans (README "The write path"): a statement sent by name
// is planned once per connection instead of on every call, where Postgres, left to choose, keeps
// planning a batch look-up (`= ANY($1)`) for the values of each call, which for a batch of one or two
// events costs more than running it. A large batch keeps plans made for its values. Observed from
// inside the applies: the setting their transaction runs with, and how the connection planned a
// named look-up (pg_prepared_statements).
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { prepared } from '../../src/db/prepared.ts';
import type { Projection } from '../../src/read-models/projection.ts';
import { SMALL_BATCH_EVENTS } from '../../src/read-models/state.ts';
import { allPassed, appendNumbered, runnerSuite } from '../support/runner-suite.ts';
import { eventually } from '../support/waits.ts';

const suite = runnerSuite();

interface Seen {
  events: number;
  mode: string;
  /** of the look-up's six calls in this apply, how many ran on a plan made for their values, how many on one made without */
  custom: number;
  generic: number;
}

/** A read model that runs a named batch look-up in each apply and records how its transaction plans. */
function planned(name: string, types: string[], seen: Seen[], extra: Partial<Projection> = {}): Projection {
  const table = `${name}_rows`;
  return {
    name,
    version: 1,
    tables: [table],
    types,
    personalData: 'unused',
    schema: (t) => `CREATE TABLE ${t(table)} (id text PRIMARY KEY, n int NOT NULL)`,
    async apply(tx: pg.PoolClient, events, t) {
      const ids = events.map((e) => e.id);
      const lookup = `SELECT count(*)::int AS n FROM ${t(table)} WHERE id = ANY($1::text[])`;
      const plans = async () => {
        const { rows } = await tx.query<{ mode: string; custom: string; generic: string }>(
          `SELECT current_setting('plan_cache_mode') AS mode,
                  coalesce((SELECT custom_plans FROM pg_prepared_statements WHERE statement = $1), 0)::text AS custom,
                  coalesce((SELECT generic_plans FROM pg_prepared_statements WHERE statement = $1), 0)::text AS generic`,
          [lookup],
        );
        return { mode: rows[0].mode, custom: Number(rows[0].custom), generic: Number(rows[0].generic) };
      };
      const before = await plans();
      // six calls: Postgres plans the first five for their values before it weighs a generic plan
      for (let i = 0; i < 6; i++) await tx.query(prepared(lookup, [ids]));
      const after = await plans();
      seen.push({ events: events.length, mode: after.mode, custom: after.custom - before.custom, generic: after.generic - before.generic });
      await tx.query(`INSERT INTO ${t(table)} (id, n) SELECT * FROM unnest($1::text[], $2::int[])`, [ids, events.map((e) => (e.data as { n: number }).n)]);
    },
    ...extra,
  };
}

describe('how a read model batch plans its statements', () => {
  it('a small batch, grouped or on its own, plans a named look-up once; a large one plans it for its values', async () => {
    const o = await suite.open();
    // the large batches: a catch-up of many events, which the runner takes in batches that double
    await appendNumbered(o.store, 'Planned', 0, 1500, 500);
    const grouped: Seen[] = [];
    const alone: Seen[] = [];
    // the webhook outbox's kind: effects beyond its tables, so its batches never join the group
    const r = await suite.startRunner(o, o.store, [planned('plans_grouped', ['Planned'], grouped), planned('plans_alone', ['Planned'], alone, { rebuildable: false })]);
    let at = await appendNumbered(o.store, 'Planned', 1500, 1);
    await eventually('the catch-up applied', async () => (allPassed(r, ['plans_grouped', 'plans_alone'], at) ? true : undefined), 30_000);
    // then single events, one wake each: small batches
    for (let n = 1501; n < 1509; n++) {
      at = await appendNumbered(o.store, 'Planned', n, 1);
      await eventually(`event ${n} applied`, async () => (allPassed(r, ['plans_grouped', 'plans_alone'], at) ? true : undefined), 10_000);
    }
    for (const seen of [grouped, alone]) {
      const large = seen.filter((s) => s.events > SMALL_BATCH_EVENTS);
      const small = seen.filter((s) => s.events <= SMALL_BATCH_EVENTS);
      expect(large.length, 'large batches seen').toBeGreaterThan(0);
      expect(small.filter((s) => s.events === 1).length, 'single-event batches seen').toBeGreaterThanOrEqual(8);
      for (const s of large) expect(s.mode).toBe('auto');
      // before: the first five calls on each connection, and every call where a plan made for one
      // id looked cheaper than one made without values
      for (const s of small) expect(s, JSON.stringify(small)).toMatchObject({ mode: 'force_generic_plan', custom: 0, generic: 6 });
    }
  });
});
