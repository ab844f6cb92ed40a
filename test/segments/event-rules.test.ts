// Event rules in segments (`event.<name>` with `count` and `within_days`) over the contact_events
// read model that POST /v1/events keeps: performed (at least count, default 1), not_performed,
// performed_at_most, each within the last days or all time; contacts with no events count 0; an
// event name is matched literally; counts follow POST /v1/events at once.
//
// Needs the `events` branch (POST /v1/events and the contact_events read model): this file runs
// once both branches are merged.
import { beforeAll, describe, expect, it } from 'vitest';
import { readyAccount, type TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';

const server = testServerForSuite();

async function ok(key: string, method: string, path: string, body?: unknown, status = 200) {
  const res = await server.call(method, path, { key, body });
  expect(res.status, `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

const DAY = 86_400_000;
/** Noon UTC `days` ago: well inside its UTC day whenever the test runs. */
const daysAgo = (days: number) => {
  const d = new Date(Date.now() - days * DAY);
  d.setUTCHours(12, 0, 0, 0);
  return new Date(Math.min(d.getTime(), Date.now())).toISOString();
};

const QUOTED = `it's "done"; --`;

describe('event rules', () => {
  let acct: TestAccount;
  let a: string, b: string, c: string, d: string;

  const track = async (key: string, events: Record<string, unknown>[]) => {
    const res = await ok(key, 'POST', '/v1/events', { events });
    expect(res.accepted, JSON.stringify(res)).toBe(events.length);
  };
  const event = (email: string, name: string, timestamp = new Date().toISOString()) => ({ contact: { email }, name, timestamp });

  /** The contacts a rule set matches (by a preview's sample), checked against its count. */
  async function matching(rules: unknown): Promise<string[]> {
    const res = await ok(acct.key, 'POST', '/v1/segments/preview', { rules, sample: true });
    expect(res.count, JSON.stringify(rules)).toBe(res.sample.length);
    return res.sample.map((x: { id: string }) => x.id).sort();
  }
  const rule = (name: string, operator: string, more: Record<string, number> = {}) => ({ field: `event.${name}`, operator, ...more });
  const expectMatch = async (rules: unknown, expected: string[]) => expect(await matching(rules), JSON.stringify(rules)).toEqual([...expected].sort());
  const all = (...rules: unknown[]) => ({ match: 'all', rules });
  const any = (...rules: unknown[]) => ({ match: 'any', rules });

  beforeAll(async () => {
    acct = await readyAccount(server);
    const contact = async (email: string) => (await ok(acct.key, 'POST', '/v1/contacts', { email }, 201)).id as string;
    [a, b, c, d] = [await contact('ev-a@example.com'), await contact('ev-b@example.com'), await contact('ev-c@example.com'), await contact('ev-d@example.com')];
    await track(acct.key, [
      event('ev-a@example.com', 'purchase'), event('ev-a@example.com', 'purchase', daysAgo(1)), event('ev-a@example.com', 'purchase', daysAgo(2)),
      event('ev-b@example.com', 'purchase', daysAgo(10)), event('ev-b@example.com', QUOTED),
      event('ev-c@example.com', 'purchase', daysAgo(40)), event('ev-c@example.com', 'signup'),
    ]);
    // another account's contact with the same email and events counts nowhere here
    const other = await readyAccount(server);
    await ok(other.key, 'POST', '/v1/contacts', { email: 'ev-d@example.com' }, 201);
    await track(other.key, [event('ev-d@example.com', 'purchase'), event('ev-d@example.com', 'purchase')]);
  });

  it('performed: at least count times (default 1), all time or within the last days', async () => {
    await expectMatch(all(rule('purchase', 'performed')), [a, b, c]);
    await expectMatch(all(rule('purchase', 'performed', { count: 1 })), [a, b, c]);
    await expectMatch(all(rule('purchase', 'performed', { count: 3 })), [a]);
    await expectMatch(all(rule('purchase', 'performed', { count: 4 })), []);
    await expectMatch(all(rule('purchase', 'performed', { within_days: 30 })), [a, b]);
    await expectMatch(all(rule('purchase', 'performed', { within_days: 5 })), [a]);
    await expectMatch(all(rule('purchase', 'performed', { count: 2, within_days: 1 })), [a]);
    await expectMatch(all(rule('purchase', 'performed', { count: 3, within_days: 1 })), []);
  });

  it('not_performed and performed_at_most include the contacts with no events at all', async () => {
    await expectMatch(all(rule('purchase', 'not_performed')), [d]);
    await expectMatch(all(rule('purchase', 'not_performed', { within_days: 30 })), [c, d]);
    await expectMatch(all(rule('purchase', 'performed_at_most', { count: 0 })), [d]);
    await expectMatch(all(rule('purchase', 'performed_at_most', { count: 1 })), [b, c, d]);
    await expectMatch(all(rule('purchase', 'performed_at_most', { count: 2, within_days: 30 })), [b, c, d]);
    await expectMatch(all(rule('never-tracked', 'not_performed')), [a, b, c, d]);
  });

  it('under any and nested groups; an event name is matched literally', async () => {
    await expectMatch(any(rule('purchase', 'performed', { within_days: 5 }), rule('signup', 'performed')), [a, c]);
    await expectMatch(all(rule('purchase', 'performed'), any(rule('signup', 'not_performed'), rule('purchase', 'performed', { count: 3 }))), [a, b]);
    await expectMatch(any(all(rule('purchase', 'performed_at_most', { count: 1 }), rule(QUOTED, 'performed')), rule('purchase', 'not_performed')), [b, d]);
    await expectMatch(all(rule(QUOTED, 'performed')), [b]);
    await expectMatch(all(rule(`it's`, 'performed')), []);
  });

  it('a saved segment counts the next event at once, and its members follow', async () => {
    const segment = await ok(acct.key, 'POST', '/v1/segments', { name: 'Recent buyers', rules: all(rule('purchase', 'performed', { within_days: 30 })) }, 201);
    expect(segment.count).toBe(2);
    await track(acct.key, [event('ev-d@example.com', 'purchase')]);
    expect((await ok(acct.key, 'GET', `/v1/segments/${segment.id}`)).count).toBe(3);
    const members = await ok(acct.key, 'GET', `/v1/segments/${segment.id}/contacts`);
    expect(members.data.map((x: { id: string }) => x.id)).toEqual([a, b, d]);
    // a deleted contact's events leave with it
    await ok(acct.key, 'DELETE', `/v1/contacts/${a}`);
    expect((await ok(acct.key, 'GET', '/v1/segments')).data).toEqual([expect.objectContaining({ id: segment.id, count: 2 })]);
  });
});
