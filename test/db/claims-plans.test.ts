// The batch statements of src/claims.ts give the planner their claims' keys as a condition of the
// primary key's index, so a batch reads only the claims it names: settling, releasing and looking up a
// batch's claims once joined its values only, and Postgres 18 planned a thousand of them in an account
// of 60,000 claims as a hash join over a scan of them all (43 ms to settle; 8 ms through the index).
// And the key the service computes for a claim is the one Postgres computes (migration 59).
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_BATCH_STATEMENTS, claimKey } from '../../src/claims.ts';
import { migratedStoreForSuite } from '../support/event-store.ts';
import { withoutScansOrProbes } from '../support/plans.ts';

const db = migratedStoreForSuite(4);
const account = `acct_${randomUUID()}`;
const HELD = 60_000;
const BATCH = 1_000;
const value = (i: number) => `v${String(i).padStart(8, '0')}`;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

/**
 * How the statement reads unique_claims without scans or join probes (test/support/plans.ts): with an
 * index condition on the batch's values, or else a whole pass over the account's rows in the index.
 */
function readsOfClaims(sql: string, params: unknown[]): Promise<string[]> {
  return withoutScansOrProbes(db.pool, async (client) => {
    const { rows } = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
    return nodes(rows[0]!['QUERY PLAN'][0]!.Plan)
      .filter((n) => n['Node Type'] !== 'ModifyTable')
      .filter((n) => n['Relation Name'] === 'unique_claims' || n['Index Name']?.startsWith('unique_claims'))
      .map((n) => `${n['Node Type']}${n['Index Name'] ? ` using ${n['Index Name']}` : ''}${n['Index Cond'] ? ` on ${n['Index Cond']}` : ''}`);
  });
}

beforeAll(async () => {
  await db.pool.query(
    `INSERT INTO unique_claims (key, account_id, kind, value, owner_id)
     SELECT unique_claim_key($1, 'tracked_event', w.v), $1, 'tracked_event', w.v, 'event:ct_' || i
     FROM generate_series(1, $2::int) AS i, LATERAL (SELECT 'v' || lpad(i::text, 8, '0') AS v) AS w`,
    [account, HELD],
  );
  await db.pool.query('ANALYZE unique_claims');
}, 60_000);

describe('claims of a batch, in an account holding many', () => {
  const values = Array.from({ length: BATCH }, (_, i) => value(1 + i * 7));
  const keys = values.map((v) => claimKey(account, 'tracked_event', v)).sort();
  const owners = values.map((v) => `event:ct_${v}`);

  it.each([
    ['transfer (settling tracked events)', () => CLAIM_BATCH_STATEMENTS.transfer, () => [keys, owners, owners.map((o) => `${o}x`)]],
    ['release', () => CLAIM_BATCH_STATEMENTS.release, () => [keys, owners]],
    ['holders', () => CLAIM_BATCH_STATEMENTS.holders, () => [keys]],
  ])('%s: through the primary key, no scan of the account', async (_name, sql, params) => {
    const reads = await readsOfClaims(sql(), params());
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) expect(r).toMatch(/^(Index Scan|Index Only Scan|Bitmap Heap Scan|Bitmap Index Scan)/);
    // the claims' keys are a condition of the primary key's index, not a filter after a pass over the table
    expect(reads.some((r) => r.includes('unique_claims_pkey') && /key = ANY/.test(r)), reads.join('\n')).toBe(true);
  });
});

describe('a claim\'s key', () => {
  it('is the same computed by the service (claimKey) and by Postgres (unique_claim_key, which keyed the rows written before)', async () => {
    const claims = [
      [account, 'tracked_event', value(1)],
      ['*', 'user_email', 'GJ3u6r0Yb2pQ3s1Vx9W8k7z6A5b4C3d2E1f0G9h8I7j'],
      [account, 'contact_email', 'étrange\\valeur\u00e9 with spaces'],
    ];
    for (const [a, k, v] of claims) {
      const { rows } = await db.pool.query<{ key: string }>(`SELECT replace(unique_claim_key($1, $2, $3)::text, '-', '') AS key`, [a, k, v]);
      expect(claimKey(a, k, v), `${a} ${k} ${v}`).toBe(rows[0]!.key);
    }
    // and they differ where any part does
    expect(new Set(claims.map(([a, k, v]) => claimKey(a, k, v))).size).toBe(3);
    expect(claimKey(account, 'contact_email', value(1))).not.toBe(claimKey(account, 'tracked_event', value(1)));
  });
});
