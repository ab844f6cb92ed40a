// A carrier's status callback that comes before the messages read model has applied the send it
// reports on (README "Provider callbacks"). A Twilio-style or WhatsApp callback names the message only
// by the provider's id, which the read model learns from MessageSent; a busy service applies it
// seconds behind the log, and carriers report within seconds. The report was acknowledged and
// dropped as naming no message we know. It is looked up again once the read model has caught up
// with the log, so the message ends delivered.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageDecider, messageStream } from '../../commands/message.ts';
import { newId } from '../../src/ids.ts';
import type { TestAccount } from '../support/accounts.ts';
import { decideAll } from '../support/decider-spec.ts';
import { testServerForSuite } from '../support/harness.ts';
import { holdReadModelTable } from '../support/held-read-model.ts';
import { TEST_APPLICATION_NAME } from '../support/processes.ts';
import { sleep } from '../support/waits.ts';
import { HOLD_SANDBOX, postCarrier, SECRETS } from './helpers.ts';

const server = testServerForSuite({ ...SECRETS, ...HOLD_SANDBOX, READ_YOUR_WRITES_TIMEOUT_MS: '20000' });
let a: TestAccount;
let db: pg.Pool;

beforeAll(async () => {
  a = await server.newAccount('Reports');
  db = new pg.Pool({ connectionString: server.engage.config.DATABASE_URL, application_name: TEST_APPLICATION_NAME, max: 2 });
});
afterAll(async () => {
  await db?.end();
});

describe('a delivery report that comes before the read model knows the send', () => {
  it('waits for the messages read model to catch up and records the report, not the floor', async () => {
    const id = newId('message');
    const sid = `SM${'8'.repeat(32)}`;
    const now = server.engage.clock.now();
    // accepted for tomorrow (no worker touches it), and applied by the read model
    const accepted = decideAll(messageDecider, messageDecider.initialState, [{
      type: 'Accept',
      data: { id, account_id: a.accountId, channel: 'sms', to: '+14155550123', message: 'Your code', transactional: true, status: 'scheduled', scheduled_at: new Date(now.getTime() + 86_400_000).toISOString(), created_at: now.toISOString() },
    }]);
    await server.engage.store.append(messageStream(id), accepted.events, 'no_stream');
    await server.caughtUp(['messages']);

    // the read model is held back: its writes wait for a lock (reads do not)
    const held = await holdReadModelTable(db, 'messages', 'message_states');
    try {
      // the carrier took the message: its id is in the log, not yet in the read model
      const sent = decideAll(messageDecider, accepted.state, [{ type: 'QueueDue', now }, { type: 'Claim', worker: 'test', now, leaseMs: 60_000 }, { type: 'RecordSent', now, provider: 'carrier', providerMessageId: sid }]);
      await server.engage.store.append(messageStream(id), sent.events, 0n);
      await held.writerWaiting();

      const report = postCarrier(server, { AccountSid: 'AC1', MessageSid: sid, SmsSid: sid, MessageStatus: 'delivered', SmsStatus: 'delivered', To: '+14155550123', From: '+15017122661' });
      // before the fix the callback answered at once and the report was dropped; now it waits
      const early = await Promise.race([report.then(() => 'answered' as const), sleep(1_000).then(() => 'waiting' as const)]);
      await held.release();
      const res = await report;
      expect(res.status).toBe(200);
      expect(early).toBe('waiting');
    } finally {
      await held.release().catch(() => undefined);
    }
    const events = await server.engage.store.readStream(messageStream(id));
    expect(events.map((e) => e.type)).toEqual(['MessageAccepted', 'MessageQueued', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);
    expect(events.at(-1)!.metadata.actor).toBe('provider:carrier');
  }, 90_000);

  it('a report naming a provider id nobody sent with is still acknowledged (after the read model has caught up)', async () => {
    const sid = `SM${'9'.repeat(32)}`;
    const res = await postCarrier(server, { AccountSid: 'AC1', MessageSid: sid, SmsSid: sid, MessageStatus: 'delivered', SmsStatus: 'delivered', To: '+14155550124', From: '+15017122661' });
    expect(res.status).toBe(200);
  });
});
