// The provider's id in message.sent / message.delivered / message.failed webhooks (projections/
// webhook-payloads.ts). A message accepted at MessageAccepted's schema version 2 names it on its
// outcome events (StatusFacts, commands/message.ts), so the outbox no longer writes it into the
// message's hook when the message is sent (one UPDATE per message less: README "The write path").
// A message accepted before keeps the old way: its hook takes the id from MessageSent, and its
// outcome, which does not name it, is delivered with the hook's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MessageCommand, messageDecider, type MessageEvent, type MessageState, messageStream } from '../../commands/message.ts';
import pino from 'pino';
import { newId } from '../../src/ids.ts';
import { type Server, startServer } from '../../src/server.ts';
import { newAccount } from '../support/accounts.ts';
import { decideAll } from '../support/decider-spec.ts';
import { freshDatabase, testConfig } from '../support/harness.ts';
import { checkedRequest } from '../support/http.ts';
import { type Receiver, startReceiver } from '../support/receivers.ts';

let server: Server;
let receiver: Receiver;
let key: string;
let accountId: string;

beforeAll(async () => {
  receiver = await startReceiver();
  // no workers (no dispatcher claims the messages): the test writes each message's events itself, one step at a time
  server = await startServer({ config: testConfig(await freshDatabase(), { WEBHOOK_ALLOW_PRIVATE: 'true' }), log: pino({ level: 'silent' }), workers: false });
  ({ key, accountId } = await newAccount(server));
  const ep = await checkedRequest(server.url, 'POST', '/v1/webhook-endpoints', { key, body: { url: receiver.url, events: ['message.delivered', 'message.failed'] } });
  expect(ep.status, JSON.stringify(ep.body)).toBe(201);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

/** A message's stream, written step by step as the decider decides, each step applied by the outbox before the next. */
class Message {
  readonly id = newId('message');
  private state: MessageState = messageDecider.initialState;
  private revision: bigint | 'no_stream' = 'no_stream';

  constructor(private readonly legacy: boolean) {}

  async step(...commands: MessageCommand[]): Promise<MessageEvent[]> {
    const { events, state } = decideAll(messageDecider, this.state, commands);
    this.state = state;
    // a message of the version before: accepted at schema version 1, its status events without StatusFacts
    const written = this.legacy ? events.map(asWrittenBefore) : events;
    const r = await server.engage.store.append(messageStream(this.id), written, this.revision);
    this.revision = r.nextExpectedRevision;
    expect(await server.engage.runner.waitFor(['webhook_outbox'], r.position, 30_000)).toBe(true);
    return written;
  }
}

function asWrittenBefore(e: MessageEvent): MessageEvent & { metadata?: { schemaVersion: number } } {
  if (e.type === 'MessageAccepted') return { ...e, metadata: { schemaVersion: 1 } };
  const { channel: _c, provider_message_id: _p, ...data } = e.data as Record<string, unknown>;
  return { ...e, data: (e.type === 'MessageSent' ? { ...data, provider_message_id: _p } : data) as never };
}

const hookProviderId = async (id: string) =>
  (await server.engage.pool.query<{ provider_message_id: string | null }>('SELECT provider_message_id FROM webhook_message_hooks WHERE message_id = $1', [id])).rows[0]?.provider_message_id;

/** The message's deliveries (to the endpoint and its own webhook_url): what each is and the provider id it names. */
const deliveredBodies = async (id: string) => {
  const { rows } = await server.engage.pool.query<{ kind: string; event_type: string; body: string }>(
    "SELECT kind, event_type, body FROM webhook_deliveries WHERE account_id = $1 AND body::jsonb->'data'->>'message_id' = $2 ORDER BY kind, event_type, created_at",
    [accountId, id],
  );
  return rows.map((r) => {
    const data = JSON.parse(r.body).data;
    return [r.kind, r.event_type, data.status, data.provider_message_id ?? null];
  });
};

describe("the provider's id in message webhooks", () => {
  for (const legacy of [false, true]) {
    it(legacy ? 'a message accepted before: the hook keeps the id from MessageSent, and the outcome is delivered with it' : 'a message whose status events carry StatusFacts: its outcome names the id; the hook is not rewritten when it is sent', async () => {
      const now = server.engage.clock.now();
      for (const [outcome, reportCommand] of [
        ['delivered', { type: 'RecordDelivered', now, provider: 'sandbox' }],
        ['failed', { type: 'RecordFailed', now, reason: 'undelivered', stage: 'report', provider: 'sandbox' }],
      ] as const) {
        const m = new Message(legacy);
        // its own webhook_url hears every status (sent among them), the endpoint its outcome
        await m.step({ type: 'Accept', data: { id: m.id, account_id: accountId, channel: 'sms', to: '+14155550123', message: 'Hi', transactional: true, webhook_url: receiver.url, status: 'queued', created_at: now.toISOString() } });
        const [, sent] = await m.step({ type: 'Claim', worker: 'test', now, leaseMs: 60_000 }, { type: 'RecordSent', now, provider: 'sandbox', providerMessageId: `sbx_${m.id}` });
        expect(sent!.data).toMatchObject(legacy ? { provider_message_id: `sbx_${m.id}` } : { channel: 'sms', provider_message_id: `sbx_${m.id}` });
        expect(await hookProviderId(m.id)).toBe(legacy ? `sbx_${m.id}` : null);
        const [report] = await m.step(reportCommand as MessageCommand);
        expect((report!.data as { provider_message_id?: string }).provider_message_id).toBe(legacy ? undefined : `sbx_${m.id}`);
        const pid = `sbx_${m.id}`;
        expect((await deliveredBodies(m.id)).sort()).toEqual(
          [['endpoint', `message.${outcome}`, outcome, pid], ['message', `message.${outcome}`, outcome, pid], ['message', 'message.queued', 'queued', null], ['message', 'message.sent', 'sent', pid]].sort(),
        );
      }
    }, 60_000);
  }
});
