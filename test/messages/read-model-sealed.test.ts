// The messages read model opens only the events whose sealed fields its rows show (README "The write
// path"): a message's content and recipient, a failure's and a retry's reason. The delivery report
// every message gets carries the provider's data sealed, and no row shows it: it reaches the read
// model sealed, and nothing decrypts it, while the rows still show what was opened.
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { messagesProjection } from '../../projections/messages.ts';
import type { NewEvent, RecordedEvent } from '../../src/eventstore/port.ts';
import { sealedKeyOf } from '../../src/personal-data/codec.ts';
import { PersonalDataStore } from '../../src/personal-data/store.ts';
import type { Projection } from '../../src/read-models/projection.ts';
import { ProjectionRunner } from '../../src/read-models/runner.ts';
import { openMigratedStore } from '../support/event-store.ts';
import { freshDatabase } from '../support/harness.ts';

const ACCOUNT = 'acct_01JSEALEDREPORTS0000000000';
const closing: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closing.reverse()) await close();
});

const at = () => new Date().toISOString();
const meta = { actor: 'test' };
const ev = (type: string, data: Record<string, unknown>): NewEvent => ({ type, data: { account_id: ACCOUNT, at: at(), ...data }, metadata: meta });
const accepted = (id: string, to: string) =>
  ev('MessageAccepted', { id, channel: 'sms', to, message: `Your code for ${id}`, transactional: true, status: 'queued', created_at: at() });

describe('the messages read model and sealed events', () => {
  it('gets the delivery reports sealed and leaves them so; the content, a failure reason and a retry reason are opened in its rows', async () => {
    const node = await openMigratedStore(await freshDatabase());
    closing.push(() => node.close());
    const store = new PersonalDataStore(node.store, node.pool);
    const lease = new Date(Date.now() + 60_000).toISOString();
    await store.appendMany([
      {
        streamId: 'message-msg_delivered',
        expected: 'no_stream',
        events: [
          accepted('msg_delivered', '+14155550101'),
          ev('MessageDispatching', { id: 'msg_delivered', worker: 'w', attempt: 1, lease_until: lease }),
          ev('MessageSent', { id: 'msg_delivered', provider: 'sandbox', provider_message_id: 'p-1' }),
          ev('MessageDelivered', { id: 'msg_delivered', provider: 'sandbox', provider_data: { handset: '+14155550101 reached' } }),
        ],
      },
      {
        streamId: 'message-msg_failed',
        expected: 'no_stream',
        events: [
          accepted('msg_failed', '+14155550102'),
          ev('MessageDispatching', { id: 'msg_failed', worker: 'w', attempt: 1, lease_until: lease }),
          ev('MessageFailed', { id: 'msg_failed', reason: 'undelivered', reason_text: 'handset +14155550102 switched off', stage: 'provider', provider: 'sandbox' }),
        ],
      },
      {
        streamId: 'message-msg_retrying',
        expected: 'no_stream',
        events: [
          accepted('msg_retrying', '+14155550103'),
          ev('MessageDispatching', { id: 'msg_retrying', worker: 'w', attempt: 1, lease_until: lease }),
          ev('MessageDispatchDeferred', { id: 'msg_retrying', attempt: 1, error: 'sandbox: +14155550103 busy', retry_at: lease }),
        ],
      },
    ]);

    // the read model as it is, recording the events its apply is given
    const given: RecordedEvent[] = [];
    const probe: Projection = {
      ...messagesProjection,
      apply: (tx, events, t) => {
        given.push(...events);
        return messagesProjection.apply(tx, events, t);
      },
    };
    const runner = new ProjectionRunner(node.pool, store, [probe], pino({ level: 'silent' }), store.wakeup);
    closing.push(() => runner.stop());
    await runner.start();
    expect(await runner.waitFor(['messages'], await store.headPosition({ includeHeldBack: true }), 30_000)).toBe(true);

    const report = given.find((e) => e.type === 'MessageDelivered');
    expect(report, 'the read model was given the delivery report').toBeDefined();
    // sealed as stored: the runner did not open it for the read model (before: it opened every event)
    expect(sealedKeyOf(report!.data)).toBeDefined();
    expect(JSON.stringify(report!.data)).not.toContain('reached');

    const { rows } = await node.pool.query('SELECT id, status, to_address, message, reason, reason_text FROM messages ORDER BY id');
    expect(rows).toEqual([
      { id: 'msg_delivered', status: 'delivered', to_address: '+14155550101', message: 'Your code for msg_delivered', reason: null, reason_text: null },
      { id: 'msg_failed', status: 'failed', to_address: '+14155550102', message: 'Your code for msg_failed', reason: 'undelivered', reason_text: 'handset +14155550102 switched off' },
      { id: 'msg_retrying', status: 'queued', to_address: '+14155550103', message: 'Your code for msg_retrying', reason: 'retrying', reason_text: 'sandbox: +14155550103 busy' },
    ]);
  }, 60_000);
});
