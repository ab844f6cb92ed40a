// A reply that comes before the reply routes have applied the send it answers (README "Inbound
// messages and conversations"): a busy service applies them seconds behind the log, and a customer
// or an auto-reply can answer within that time. It was acknowledged and dropped as written to a
// number no account sends from. The route is looked up again once the reply routes have caught up
// with the log, so the reply reaches the account's conversation.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { holdReadModelTable } from '../support/held-read-model.ts';
import { TEST_APPLICATION_NAME } from '../support/processes.ts';
import { eventually, sleep } from '../support/waits.ts';
import { postCarrier, SECRETS } from '../webhooks-inbound/helpers.ts';

const OUR_SMS_NUMBER = '+447400123222';
const CUSTOMER = '+447400123201';
const server = testServerForSuite({ ...SECRETS, READ_YOUR_WRITES_TIMEOUT_MS: '20000' });
let a: TestAccount;
let db: pg.Pool;

beforeAll(async () => {
  a = await server.newAccount('Replies');
  db = new pg.Pool({ connectionString: server.engage.config.DATABASE_URL, application_name: TEST_APPLICATION_NAME, max: 2 });
});
afterAll(async () => {
  await db?.end();
});

describe('a reply that comes before its route is applied', () => {
  it('waits for the reply routes to catch up and reaches the conversation, not the floor', async () => {
    // the reply routes are held back: their writes wait for a lock (reads do not)
    const held = await holdReadModelTable(db, 'reply_routes', 'reply_routes');
    try {
      const sent = await server.call('POST', '/v1/messages/send', { key: a.key, body: { to: CUSTOMER, channel: 'sms', message: 'Your order shipped', sender: OUR_SMS_NUMBER } });
      expect(sent.status, JSON.stringify(sent.body)).toBe(202);
      // the route's write is waiting for the lock: the reply comes before it is applied
      await held.writerWaiting();
      const reply = postCarrier(server, { MessageSid: `SM${'7'.repeat(32)}`, AccountSid: 'AC1', From: CUSTOMER, To: OUR_SMS_NUMBER, Body: 'thanks!', NumMedia: '0' });
      // before the fix the callback answered at once, the reply dropped; now it waits for the route
      const early = await Promise.race([reply.then(() => 'answered' as const), sleep(1_000).then(() => 'waiting' as const)]);
      await held.release();
      const res = await reply;
      expect(res.status).toBe(200);
      expect(early).toBe('waiting');
    } finally {
      await held.release().catch(() => undefined);
    }
    const conversation = await eventually('the conversation of the reply', async () => {
      const list = await server.call('GET', '/v1/conversations', { key: a.key });
      return (list.body.data as unknown[]).length === 1 ? (list.body.data as { id: string }[])[0] : undefined;
    }, 30_000, 100);
    const thread = await server.call('GET', `/v1/conversations/${conversation!.id}/messages`, { key: a.key });
    expect((thread.body.data as { body?: string }[]).some((m) => m.body === 'thanks!')).toBe(true);
  }, 90_000);
});
