// The messages read model writes a row's recipient and content once, when the message is accepted,
// and each later status without them (README "The write path"): a row built a batch at a time while
// messages move through their statuses must be the very row a rebuild from the log gives.
import { describe, expect, it } from 'vitest';
import { messagesProjection } from '../../projections/messages.ts';
import { readyAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { rebuildAndWait } from '../support/rebuild.ts';
import { until } from '../support/waits.ts';

const server = testServerForSuite();

const rows = async (accountId: string) =>
  (await server.engage.pool.query(`SELECT * FROM messages WHERE account_id = $1 ORDER BY id`, [accountId])).rows;
/** the state table's rows as well: it keeps columns the view does not show */
const states = async (accountId: string) =>
  (await server.engage.pool.query(`SELECT * FROM message_states WHERE account_id = $1 ORDER BY id`, [accountId])).rows;

describe('messages read model rows', () => {
  it('a row applied status by status equals the row a rebuild gives, content and all', async () => {
    const acct = await readyAccount(server);
    const sends = [
      { to: 'ada@example.com', channel: 'email', subject: 'Hello', message: 'plain text', htmlmessage: '<p>html</p>', reply_to: 'r@example.com', from_name: 'Acme', headers: { 'X-Tag': 'a' }, category: 'news', transactional: true },
      { to: '+14155550123', channel: 'sms', message: 'an sms', transactional: true },
      { to: 'bob@example.com', channel: 'email', subject: 'Later', message: 'scheduled', transactional: true, scheduled_at: new Date(Date.now() + 3_600_000).toISOString() },
    ];
    const ids: string[] = [];
    for (const body of sends) {
      const res = await server.call('POST', '/v1/messages/send', { key: acct.key, body });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      ids.push(res.body.id);
    }
    // the first two go through queued → sent → delivered, each status a batch of its own
    for (const id of ids.slice(0, 2)) {
      const done = await until(() => server.call('GET', `/v1/messages/${id}`, { key: acct.key }), (r) => r.body?.status === 'delivered', 30_000);
      expect(done.body.status).toBe('delivered');
    }
    // the scheduled one is cancelled
    expect((await server.call('DELETE', `/v1/messages/${ids[2]}`, { key: acct.key })).status).toBe(200);
    await server.caughtUp(['messages']);
    const live = await rows(acct.accountId);
    const liveStates = await states(acct.accountId);
    expect(liveStates).toHaveLength(3);
    expect(live.map((r) => r.status)).toEqual(expect.arrayContaining(['delivered', 'delivered', 'cancelled']));
    expect(live.find((r) => r.channel === 'email' && r.status === 'delivered')).toMatchObject({ subject: 'Hello', htmlmessage: '<p>html</p>', headers: { 'X-Tag': 'a' }, from_name: 'Acme' });
    await rebuildAndWait(server, messagesProjection);
    expect(await rows(acct.accountId)).toEqual(live);
    expect(await states(acct.accountId)).toEqual(liveStates);
  });
});
