// Group commit of a single write's own statements (README "The write path"): the claims and the data
// keys of writes made at the same moment go to Postgres together, one statement for all, and each
// caller still gets its own answer.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { claim } from '../../src/claims.ts';
import { keysForFewSubjects, keysForSubjects } from '../../src/personal-data/keys.ts';
import { migratedStoreForSuite } from '../support/event-store.ts';

const db = migratedStoreForSuite(20);
const stillHolds = async () => true;

/** The transactions that wrote these rows (xmin), one per statement here. */
async function writers(table: 'unique_claims' | 'data_keys', column: 'owner_id' | 'subject', values: readonly string[]): Promise<Set<string>> {
  const { rows } = await db.pool.query<{ x: string }>(`SELECT xmin::text AS x FROM ${table} WHERE ${column} = ANY($1)`, [values]);
  expect(rows).toHaveLength(values.length);
  return new Set(rows.map((r) => r.x));
}

describe('grouped claims', () => {
  it('claims made at once are written in one statement, each answered on its own', async () => {
    const account = `acct_${randomUUID()}`;
    const owners = Array.from({ length: 10 }, (_, i) => `ct_${randomUUID()}_${i}`);
    const answers = await Promise.all(owners.map((o, i) => claim(db.pool, { accountId: account, kind: 'email' }, `p${i}@example.com`, o, stillHolds)));
    expect(answers).toEqual(owners.map(() => null));
    // before: one statement (and commit) per claim, ten of them
    expect((await writers('unique_claims', 'owner_id', owners)).size).toBe(1);
  });

  it('two owners claiming one value at once: exactly one holds it, the other is told who', async () => {
    const account = `acct_${randomUUID()}`;
    const [a, b] = [`ct_${randomUUID()}`, `ct_${randomUUID()}`];
    const scope = { accountId: account, kind: 'email' };
    const answers = await Promise.all([
      claim(db.pool, scope, 'same@example.com', a, stillHolds),
      claim(db.pool, scope, `other-${a}@example.com`, `ct_${randomUUID()}`, stillHolds),
      claim(db.pool, scope, 'same@example.com', b, stillHolds),
    ]);
    expect(answers).toEqual([null, null, a]);
  });

  it('the same value in two accounts is two claims, both taken in one statement', async () => {
    const owners = [`ct_${randomUUID()}`, `ct_${randomUUID()}`];
    const answers = await Promise.all(owners.map((o) => claim(db.pool, { accountId: `acct_${randomUUID()}`, kind: 'email' }, 'shared@example.com', o, stillHolds)));
    expect(answers).toEqual([null, null]);
    expect((await writers('unique_claims', 'owner_id', owners)).size).toBe(1);
  });
});

describe('grouped data keys', () => {
  it('the keys of writes made at once are made in one statement; each write gets its own subjects, the same key for a shared one', async () => {
    const account = `acct_${randomUUID()}`;
    const subjects = Array.from({ length: 6 }, (_, i) => `contact:${randomUUID()}-${i}`);
    const wants = [[subjects[0], subjects[1]], [subjects[2]], [subjects[3], subjects[1]], [subjects[4], subjects[5]]];
    const got = await Promise.all(wants.map((w) => keysForFewSubjects(db.pool, account, w)));
    got.forEach((keys, i) => expect([...keys.keys()].sort()).toEqual([...new Set(wants[i])].sort()));
    expect(got[0].get(subjects[1])!.id).toBe(got[2].get(subjects[1])!.id);
    for (const keys of got) for (const k of keys.values()) expect(k.key).toHaveLength(32);
    // before: one statement per write, four of them
    expect((await writers('data_keys', 'subject', subjects)).size).toBe(1);
  });

  it('a subject with a key keeps it: a later write gets the same key', async () => {
    const account = `acct_${randomUUID()}`;
    const subject = `contact:${randomUUID()}`;
    const first = (await keysForFewSubjects(db.pool, account, [subject])).get(subject)!;
    const [again] = await Promise.all([keysForFewSubjects(db.pool, account, [subject]), keysForFewSubjects(db.pool, account, [`contact:${randomUUID()}`])]);
    expect(again.get(subject)).toEqual(first);
  });

  it('writes on two connections making the same subject\'s key at once both get the one key made', async () => {
    const account = `acct_${randomUUID()}`;
    const subjects = Array.from({ length: 3 }, () => `address:${randomUUID()}`);
    // not grouped (keysForSubjects on separate clients): each statement's insert races the other's
    const clients = await Promise.all([db.pool.connect(), db.pool.connect()]);
    try {
      const [a, b] = await Promise.all(clients.map((c) => keysForSubjects(c, account, subjects)));
      for (const s of subjects) {
        expect(a.get(s)!.key).toHaveLength(32);
        expect(b.get(s)).toEqual(a.get(s));
      }
    } finally {
      for (const c of clients) c.release();
    }
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM data_keys WHERE account_id = $1', [account]);
    expect(rows[0].n).toBe(subjects.length);
  });

  it('a few subjects are read and made by one function, its statement planned once per session (a generic plan) with JIT off', async () => {
    const { rows } = await db.pool.query<{ proconfig: string[] }>(`SELECT proconfig FROM pg_proc WHERE proname = 'data_keys_read_or_make'`);
    expect(rows).toEqual([{ proconfig: ['jit=off', 'plan_cache_mode=force_generic_plan'] }]);
    const client = await db.pool.connect();
    try {
      const calls = async () =>
        (await client.query<{ n: number }>(`SELECT coalesce(sum(generic_plans + custom_plans), 0)::int AS n FROM pg_prepared_statements WHERE statement LIKE '%data_keys_read_or_make%'`)).rows[0].n;
      const before = await calls();
      const account = `acct_${randomUUID()}`;
      for (let i = 0; i < 3; i++) await keysForSubjects(client, account, [`contact:${randomUUID()}`]);
      // each write of a few subjects goes through it
      expect((await calls()) - before).toBe(3);
    } finally {
      client.release();
    }
  });
});
