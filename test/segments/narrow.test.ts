// The narrow copy segment counts read (README "Segments"): segment_contacts follows every contact
// write (create, update of a column or a custom value, a value removed, delete, erasure) with what
// the contacts row says, custom keys get their slots from the definitions, counts over it equal the
// members the contacts table gives for the same rules, and a rebuild of the contacts read model
// writes identical rows.
import { describe, expect, it } from 'vitest';
import { contactsProjection } from '../../projections/contacts.ts';
import { compileRules, countSource } from '../../src/segments/compile.ts';
import { readyAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { rebuildAndWait } from '../support/rebuild.ts';

const server = testServerForSuite();

async function ok(key: string, method: string, path: string, body?: unknown, status = 200) {
  const res = await server.call(method, path, { key, body });
  expect(res.status, `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

type Rules = { match: 'all' | 'any'; rules: any[] };
const all = (...rules: unknown[]): Rules => ({ match: 'all', rules });
const any = (...rules: unknown[]): Rules => ({ match: 'any', rules });
const rule = (field: string, operator: string, value?: unknown) => (value === undefined ? { field, operator } : { field, operator, value });

/** The account's segment rows with the custom values by key, as a test reads them. */
async function narrowRows(accountId: string) {
  const { rows } = await server.engage.pool.query(
    `SELECT s.id, s.country, s.language, s.created_at,
       (SELECT jsonb_object_agg(k.key, s.custom[k.slot]) FILTER (WHERE s.custom[k.slot] IS NOT NULL) FROM segment_custom_keys k WHERE k.account_id = s.account_id) AS custom
     FROM segment_contacts s WHERE s.account_id = $1 ORDER BY s.id`,
    [accountId],
  );
  return rows;
}

/** The same, from the contacts rows: what the segment rows must say. */
async function expectedRows(accountId: string) {
  const { rows } = await server.engage.pool.query(
    `SELECT c.id, c.country, c.language, c.created_at,
       (SELECT jsonb_object_agg(kv.key, lower(c.custom_fields ->> kv.key)) FILTER (WHERE c.custom_fields ->> kv.key IS NOT NULL) FROM jsonb_each(c.custom_fields) kv) AS custom
     FROM contacts c WHERE c.account_id = $1 ORDER BY c.id`,
    [accountId],
  );
  return rows;
}

describe('segment_contacts', () => {
  it('follows contact creates, updates, removed values, deletes and erasures, with the custom values lower-cased by slot', async () => {
    const { key, accountId } = await readyAccount(server);
    await ok(key, 'POST', '/v1/contacts/fields', { key: 'plan', label: 'Plan', type: 'text' }, 201);
    await ok(key, 'POST', '/v1/contacts/fields', { key: 'score', label: 'Score', type: 'number' }, 201);
    await ok(key, 'POST', '/v1/contacts/fields', { key: 'active', label: 'Active', type: 'boolean' }, 201);
    // a definition's write waits for the fields read model; the slots are the contacts read model's
    await server.caughtUp(['contacts']);
    const { rows: slots } = await server.engage.pool.query('SELECT key, slot FROM segment_custom_keys WHERE account_id = $1 ORDER BY slot', [accountId]);
    expect(slots).toEqual([{ key: 'plan', slot: 1 }, { key: 'score', slot: 2 }, { key: 'active', slot: 3 }]);

    const a = await ok(key, 'POST', '/v1/contacts', { email: 'a@example.com', country: 'gb', language: 'en', custom_fields: { plan: 'Pro Plus', score: 4.5 } }, 201);
    const b = await ok(key, 'POST', '/v1/contacts', { email: 'b@example.com', custom_fields: { active: true } }, 201);
    const c = await ok(key, 'POST', '/v1/contacts', { email: 'c@example.com', country: 'US' }, 201);
    const d = await ok(key, 'POST', '/v1/contacts', { email: 'd@example.com', custom_fields: { plan: 'SCHLOß' } }, 201);
    expect(await narrowRows(accountId)).toEqual(await expectedRows(accountId));
    const byId = new Map((await narrowRows(accountId)).map((r) => [r.id, r]));
    expect(byId.get(a.id)).toMatchObject({ country: 'GB', language: 'en', custom: { plan: 'pro plus', score: '4.5' } });
    expect(byId.get(b.id)).toMatchObject({ country: null, custom: { active: 'true' } });
    expect(byId.get(c.id)).toMatchObject({ country: 'US', custom: null });
    expect(byId.get(d.id)).toMatchObject({ custom: { plan: 'schloß' } });

    await ok(key, 'PATCH', `/v1/contacts/${a.id}`, { country: 'FR', custom_fields: { plan: null, score: 7 } });
    await ok(key, 'PATCH', `/v1/contacts/${c.id}`, { custom_fields: { plan: 'Free' } });
    await ok(key, 'DELETE', `/v1/contacts/${b.id}`);
    await ok(key, 'POST', `/v1/contacts/${d.id}/erase`, {});
    const after = await narrowRows(accountId);
    expect(after).toEqual(await expectedRows(accountId));
    expect(after.map((r) => [r.id, r.country, r.custom])).toEqual([
      [a.id, 'FR', { score: '7' }],
      [c.id, 'US', { plan: 'free' }],
    ]);
  });

  it('counts rules that read only it over it, and others over contacts; its counts equal the members contacts give', async () => {
    const plan = rule('custom.plan', 'eq', 'pro');
    expect(countSource(all(plan, rule('contact.country', 'in', ['US']), { field: 'event.purchase', operator: 'performed', within_days: 30 }))).toBe('segment_contacts');
    expect(countSource(any(plan, rule('list', 'in', 'lst_01ARZ3NDEKTSV4RRFFQ69G5FAV'), rule('contact.created_at', 'within_last_days', 3)))).toBe('segment_contacts');
    for (const other of [rule('contact.email', 'is_set'), rule('tag', 'has', 'x'), rule('suppressed', 'is_true'), rule('custom.score', 'eq', 5), rule('custom.score', 'gt', 5), rule('custom.active', 'is_true')]) {
      expect(countSource(all(plan, any(other))), JSON.stringify(other)).toBe('contacts');
    }
    expect(() => compileRules(all(rule('contact.email', 'is_set')), { accountId: 'acct_1', now: new Date() }, 'segment_contacts')).toThrow();
    // a custom key and its values are parameters there too, never SQL
    const hostile = `x'); DROP TABLE segment_contacts; --`;
    const narrow = compileRules(
      any(rule(`custom.${hostile}`, 'eq', hostile), rule('custom.plan', 'contains', hostile), rule('custom.plan', 'in', [hostile])),
      { accountId: 'acct_1', now: new Date() },
      'segment_contacts',
    );
    expect(narrow.where).not.toContain(hostile);
    expect(narrow.where).not.toMatch(/['";]|--/);
    expect(narrow.params).toEqual(['acct_1', hostile, hostile.toLowerCase(), 'plan', `%${hostile.replace('_', '\\_')}%`, 'plan', [hostile.toLowerCase()]]);

    const { key } = await readyAccount(server);
    await ok(key, 'POST', '/v1/contacts/fields', { key: 'plan', label: 'Plan', type: 'text' }, 201);
    await ok(key, 'POST', '/v1/contacts/fields', { key: 'score', label: 'Score', type: 'number' }, 201);
    const people = [
      { country: 'US', custom_fields: { plan: 'PRO', score: 10 } },
      { country: 'GB', custom_fields: { plan: 'pro' } },
      { country: 'DE', custom_fields: { plan: 'Pro_100%' } },
      { country: 'US', custom_fields: { plan: 'Schloß', score: 1.5 } },
      { country: 'US', custom_fields: { plan: '' } },
      { language: 'pt-BR' },
      {},
    ];
    for (const [i, p] of people.entries()) await ok(key, 'POST', '/v1/contacts', { email: `n${i}@example.com`, ...p }, 201);
    // a key with a slot beyond every contact's values
    await ok(key, 'POST', '/v1/contacts/fields', { key: 'unused', label: 'Unused', type: 'text' }, 201);
    const cases: [Rules, number][] = [
      [all(plan), 2],
      [all(rule('custom.plan', 'neq', 'PRO')), 5],
      [all(rule('custom.plan', 'in', ['pro', 'SCHLOß'])), 3],
      [all(rule('custom.plan', 'not_in', ['pro'])), 5],
      [all(rule('custom.plan', 'contains', '_100%')), 1],
      [all(rule('custom.plan', 'not_contains', 'ro')), 4],
      [all(rule('custom.plan', 'starts_with', 'PR')), 3],
      [all(rule('custom.plan', 'ends_with', 'LOß')), 1],
      [all(rule('custom.plan', 'is_set')), 4],
      [all(rule('custom.plan', 'is_not_set')), 3],
      // a number read as text, as a text rule on contacts reads it
      [all(rule('custom.score', 'is_set')), 2],
      [all(rule('custom.unused', 'is_not_set')), 7],
      [any(rule('custom.unused', 'eq', 'x'), rule('custom.unused', 'is_set')), 0],
      [all(plan, rule('contact.country', 'in', ['us', 'GB'])), 2],
      [any(plan, rule('contact.language', 'eq', 'PT-br')), 3],
      [all(rule('contact.created_at', 'within_last_days', 1), rule('contact.country', 'not_in', ['US'])), 4],
    ];
    for (const [rules, expected] of cases) {
      expect(countSource(rules), JSON.stringify(rules)).toBe('segment_contacts');
      const preview = await ok(key, 'POST', '/v1/segments/preview', { rules, sample: true });
      // the count reads segment_contacts, the sample contacts: the same contacts
      expect([preview.count, preview.sample.length], JSON.stringify(rules)).toEqual([expected, expected]);
    }
  });

  it('a rebuild of the contacts read model writes identical slots and rows, an erased contact’s keys included', async () => {
    const { key, accountId } = await readyAccount(server);
    for (const k of ['zeta', 'alpha', 'mid']) await ok(key, 'POST', '/v1/contacts/fields', { key: k, label: k, type: 'text' }, 201);
    const first = await ok(key, 'POST', '/v1/contacts', { email: 'r1@example.com', custom_fields: { mid: 'M', alpha: 'A' } }, 201);
    await ok(key, 'POST', '/v1/contacts', { email: 'r2@example.com', country: 'NL', custom_fields: { zeta: 'Z' } }, 201);
    await ok(key, 'POST', `/v1/contacts/${first.id}/erase`, {});
    const snapshot = async () => ({
      slots: (await server.engage.pool.query('SELECT key, slot FROM segment_custom_keys WHERE account_id = $1 ORDER BY key', [accountId])).rows,
      rows: (await server.engage.pool.query('SELECT * FROM segment_contacts WHERE account_id = $1 ORDER BY id', [accountId])).rows,
    });
    const before = await snapshot();
    expect(before.slots).toEqual([{ key: 'alpha', slot: 2 }, { key: 'mid', slot: 3 }, { key: 'zeta', slot: 1 }]);
    expect(before.rows).toHaveLength(1);
    await rebuildAndWait(server, contactsProjection);
    expect(await snapshot()).toEqual(before);
  });
});
