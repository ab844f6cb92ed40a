// Cursors are base64url JSON, so a client can send one this API never gave out (issue 25, found by
// test/http/fuzz-operations.test.ts): a value the database cannot take in it — a conversation
// cursor's time that is no timestamp or one beyond Postgres, a ledger cursor's sequence number
// beyond its int column — is a 400 naming the cursor, never a 500; the cursors the API gives out
// keep paging.
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { expectRejected } from '../support/http.ts';
import { eventually } from '../support/waits.ts';
import { postCarrier, SECRETS } from '../webhooks-inbound/helpers.ts';

const server = testServerForSuite({ ...SECRETS });
const OUR_SMS_NUMBER = '+447400123111';
const CUSTOMERS = ['+447400123101', '+447400123102'];
let a: TestAccount;

const cursor = (value: Record<string, unknown>) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * The number of rows a page of `path` holds now. Polled every 250 ms: a read refused meanwhile (the
 * account's reads per minute, on a slow run) is not an answer yet; any other status fails.
 */
async function rows(path: string): Promise<number> {
  const res = await server.call('GET', path, { key: a.key });
  if (res.status === 429) return 0;
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.data as unknown[]).length;
}

beforeAll(async () => {
  a = await server.newAccount('Cursors');
  // two conversations (two customers reply to the account) and two ledger entries (the sends)
  for (const [i, customer] of CUSTOMERS.entries()) {
    const sent = await server.call('POST', '/v1/messages/send', { key: a.key, body: { to: customer, channel: 'sms', message: 'Your order shipped', sender: OUR_SMS_NUMBER } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    await postCarrier(server, { MessageSid: `SM${String(i + 1).padStart(32, '0')}`, AccountSid: 'AC1', From: customer, To: OUR_SMS_NUMBER, Body: 'thanks', NumMedia: '0' });
  }
  await eventually('both conversations', async () => ((await rows('/v1/conversations')) === 2 ? true : undefined), 30_000, 250);
  await eventually('both ledger entries', async () => ((await rows('/v1/account/balance/transactions')) >= 2 ? true : undefined), 30_000, 250);
});

describe('conversation cursors', () => {
  const badTimes = ['not a time', '-099999-01-01T00:00:00.000Z', '0000-01-01T00:00:00Z', '2024-01-01T00:00:00+99:00'];

  it('a cursor whose time is not a timestamp Postgres holds is a 400, on the inbox and on a thread', async () => {
    const inbox = (await server.call('GET', '/v1/conversations', { key: a.key })).body.data as { id: string }[];
    for (const at of badTimes) {
      const c = cursor({ at, id: inbox[0]!.id });
      expectRejected(await server.call('GET', `/v1/conversations?cursor=${c}`, { key: a.key }), 'cursor');
      expectRejected(await server.call('GET', `/v1/conversations/${inbox[0]!.id}/messages?cursor=${c}`, { key: a.key }), 'cursor');
    }
  });

  it('the cursors the API gives out still page through the inbox and a thread', async () => {
    const first = await server.call('GET', '/v1/conversations?limit=1', { key: a.key });
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await server.call('GET', `/v1/conversations?limit=1&cursor=${first.body.next_cursor}`, { key: a.key });
    expect(second.status).toBe(200);
    expect(second.body.data.map((c: { id: string }) => c.id)).not.toContain(first.body.data[0].id);
    expect(second.body.data).toHaveLength(1);
    const id = first.body.data[0].id as string;
    // the thread holds the customer's message; our answer makes it two
    expect((await server.call('POST', `/v1/conversations/${id}/reply`, { key: a.key, body: { message: 'You are welcome' } })).status).toBe(202);
    await eventually('the answer in the thread', async () => ((await rows(`/v1/conversations/${id}/messages`)) === 2 ? true : undefined), 30_000, 250);
    const thread = await server.call('GET', `/v1/conversations/${id}/messages?limit=1`, { key: a.key });
    expect(thread.body.next_cursor).toEqual(expect.any(String));
    const rest = await server.call('GET', `/v1/conversations/${id}/messages?limit=1&cursor=${thread.body.next_cursor}`, { key: a.key });
    expect(rest.status).toBe(200);
    expect(rest.body.data).toHaveLength(1);
  });
});

describe('ledger cursors', () => {
  it("a cursor whose sequence number is beyond the ledger's int column is a 400", async () => {
    for (const s of [2 ** 31, Number.MAX_SAFE_INTEGER]) {
      expectRejected(await server.call('GET', `/v1/account/balance/transactions?cursor=${cursor({ c: '0', p: '0', s })}`, { key: a.key }), 'cursor');
    }
  });

  it('the cursors the API gives out still page through the ledger', async () => {
    const first = await server.call('GET', '/v1/account/balance/transactions?limit=1', { key: a.key });
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await server.call('GET', `/v1/account/balance/transactions?limit=1&cursor=${first.body.next_cursor}`, { key: a.key });
    expect(second.status).toBe(200);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
  });
});
