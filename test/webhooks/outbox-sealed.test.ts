// The webhook outbox reads its events sealed and opens only those it may deliver (README "Personal
// data and erasure"; projections/webhook-outbox.ts openWhereListened). Written while no read model
// runs, an endpoint and, after it, a contact of the same account reach the outbox in one batch: the
// contact.created it delivers carries the contact's fields opened. A contact of an account without
// an endpoint is delivered to nobody, and a message's own webhook_url still gets its recipient.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookEndpointDecider, webhookEndpointStream } from '../../commands/webhook-endpoint.ts';
import { webhookOutboxProjection } from '../../projections/webhook-outbox.ts';
import { createAccount } from '../../src/accounts/service.ts';
import { handleCommand } from '../../src/command-handler.ts';
import { createContact } from '../../src/contacts/service.ts';
import { newId } from '../../src/ids.ts';
import { seal } from '../../src/seal.ts';
import { type Server, startServer } from '../../src/server.ts';
import { freshDatabase, testConfig } from '../support/harness.ts';
import { type Receiver, startReceiver } from '../support/receivers.ts';
import { eventually } from '../support/waits.ts';

describe('the webhook outbox opens only what it delivers', () => {
  let url: string;
  let writer: Server | undefined;
  let server: Server | undefined;
  let receiver: Receiver;

  beforeAll(async () => {
    url = await freshDatabase();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await server?.close();
    await writer?.close();
    await receiver?.close();
  });

  it('delivers contact.created opened to an endpoint created earlier in the same batch; another account’s contact goes nowhere', async () => {
    expect(webhookOutboxProjection.personalData).toBe('opened-by-apply');
    const config = testConfig(url, { WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMITS_ENABLED: 'false' });
    // the writes, with no read model running: the outbox later meets all of them at once
    writer = await startServer({ config, log: pino({ level: 'silent' }), runProjections: false, workers: false });
    const engage = writer.engage;
    const listened = await createAccount(engage, { name: 'Listened', email: 'listened@example.com', password: 'correct horse battery' });
    const quiet = await createAccount(engage, { name: 'Quiet', email: 'quiet@example.com', password: 'correct horse battery' });
    const meta = (accountId: string) => ({ accountId, actor: 'test', requestId: 'outbox-sealed', correlationId: 'outbox-sealed', causationId: 'outbox-sealed' });
    const endpointId = newId('webhookEndpoint');
    await handleCommand(engage.store, webhookEndpointDecider, webhookEndpointStream(endpointId), {
      type: 'Create', id: endpointId, accountId: listened.account_id, url: receiver.url, events: ['contact.created'],
      secretSealed: await seal(engage.pool, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'), now: engage.clock.now(),
    }, meta(listened.account_id));
    const heard = await createContact(engage, listened.account_id, { email: 'heard@example.com', first_name: 'Ada', custom_fields: {} }, meta(listened.account_id));
    await createContact(engage, quiet.account_id, { email: 'unheard@example.com', first_name: 'Bob' }, meta(quiet.account_id));
    await writer.close();
    writer = undefined;

    server = await startServer({ config, log: pino({ level: 'silent' }) });
    const hit = await eventually('the contact.created delivery', async () => receiver.hits.find((h) => h.headers['x-service-event'] === 'contact.created'), 60_000);
    expect(hit.json).toMatchObject({ type: 'contact.created', data: { id: heard.contact.id, email: 'heard@example.com', first_name: 'Ada' } });
    await server.engage.runner.waitFor(['webhook_outbox'], await server.engage.store.headPosition({ includeHeldBack: true }), 60_000);
    const { rows } = await server.engage.pool.query<{ account_id: string; body: string }>('SELECT account_id, body FROM webhook_deliveries');
    expect(rows.map((r) => r.account_id)).toEqual([listened.account_id]);
    expect(rows[0]!.body).toContain('heard@example.com');
    expect(receiver.hits.some((h) => h.body.includes('unheard@example.com'))).toBe(false);
  }, 120_000);
});
