// Every channel through the sandbox provider, its documented failing test recipients, and the
// retry of transient provider errors with exponential backoff up to DISPATCH_MAX_ATTEMPTS.
import { beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_RECIPIENTS } from '../../src/channels/sandbox.ts';
import { readyAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { type TimelineEvent } from '../support/messages.ts';
import { eventually } from '../support/waits.ts';

const BASE_MS = 50;
const MAX_ATTEMPTS = 3;

describe('channels through the sandbox', () => {
  let key: string;
  const server = testServerForSuite({ DISPATCH_RETRY_BASE_MS: String(BASE_MS), DISPATCH_MAX_ATTEMPTS: String(MAX_ATTEMPTS) });
  beforeAll(async () => {
    ({ key } = await readyAccount(server));
  });

  const calls = () => server.workers.messaging!.providers.sandbox.calls;

  async function send(body: Record<string, unknown>): Promise<string> {
    const res = await server.call('POST', '/v1/messages/send', { key, body: { transactional: true, ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.id;
  }

  async function final(id: string): Promise<{ row: any; events: TimelineEvent[] }> {
    const row = await eventually(`${id} to end`, async () => {
      const r = await server.call('GET', `/v1/messages/${id}`, { key });
      return r.body.status === 'delivered' || r.body.status === 'failed' ? r.body : undefined;
    });
    const t = await server.call('GET', `/v1/messages/${id}/timeline`, { key });
    return { row, events: t.body.events };
  }

  const types = (events: TimelineEvent[]) => events.map((e) => e.type);

  it('delivers on each of the six channels', async () => {
    const sends = {
      sms: { to: '+14155550101', channel: 'sms', message: 'sms' },
      rcs: { to: '+14155550102', channel: 'rcs', message: 'rcs' },
      whatsapp: { to: '+14155550103', channel: 'whatsapp', message: 'whatsapp' },
      voice: { to: '+14155550104', channel: 'voice', message: 'voice' },
      email: { to: 'someone@example.com', channel: 'email', subject: 'hi', message: 'email', htmlmessage: '<p>email</p>' },
      push: { to: 'device-token-0123456789', channel: 'push', message: 'push' },
    };
    const ids = Object.fromEntries(await Promise.all(Object.entries(sends).map(async ([channel, body]) => [channel, await send(body)] as const)));
    for (const [channel, id] of Object.entries(ids)) {
      const { row, events } = await final(id);
      expect(row, channel).toMatchObject({ status: 'delivered', channel, provider: 'sandbox', provider_message_id: `sbx_${id}`, reason: null });
      expect(types(events), channel).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);
      expect(events[3].details.provider_data, channel).toMatchObject({ sandbox: true, channel });
      expect(calls().get(id), channel).toBe(1);
    }
  });

  it('fails the documented failing test recipients with their reasons', async () => {
    // rejected when handed over: failed at the provider stage, never sent
    const atSend = [
      { body: { to: '+15005550001', channel: 'sms', message: 'x' }, reason: SANDBOX_RECIPIENTS.phone['+15005550001'].reason },
      { body: { to: '+15005550001', channel: 'voice', message: 'x' }, reason: 'invalid_number' },
      { body: { to: 'reject@sandbox.engage.test', channel: 'email', subject: 's', message: 'x' }, reason: SANDBOX_RECIPIENTS.email['reject@sandbox.engage.test'].reason },
      { body: { to: 'sandbox-invalid-token', channel: 'push', message: 'x' }, reason: SANDBOX_RECIPIENTS.push['sandbox-invalid-token'].reason },
    ];
    // accepted, then reported failed: sent first, failed by the report
    const byReport = [
      { body: { to: '+15005550003', channel: 'sms', message: 'x' }, reason: SANDBOX_RECIPIENTS.phone['+15005550003'].reason },
      { body: { to: '+15005550004', channel: 'whatsapp', message: 'x' }, reason: SANDBOX_RECIPIENTS.phone['+15005550004'].reason },
      { body: { to: '+15005550003', channel: 'rcs', message: 'x' }, reason: 'undelivered' },
      { body: { to: 'bounce@sandbox.engage.test', channel: 'email', subject: 's', message: 'x' }, reason: SANDBOX_RECIPIENTS.email['bounce@sandbox.engage.test'].reason },
      { body: { to: 'sandbox-unregistered-token', channel: 'push', message: 'x' }, reason: SANDBOX_RECIPIENTS.push['sandbox-unregistered-token'].reason },
    ];
    expect(atSend.map((c) => c.reason)).toEqual(['invalid_number', 'invalid_number', 'mailbox_unavailable', 'invalid_token']);
    expect(byReport.map((c) => c.reason)).toEqual(['undelivered', 'unreachable', 'undelivered', 'bounced', 'unregistered']);
    const sendIds = await Promise.all(atSend.map((c) => send(c.body)));
    const reportIds = await Promise.all(byReport.map((c) => send(c.body)));

    for (const [i, id] of sendIds.entries()) {
      const { row, events } = await final(id);
      expect(row, atSend[i].body.to).toMatchObject({ status: 'failed', reason: atSend[i].reason, sent_at: null, provider: 'sandbox' });
      expect(types(events)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageFailed']);
      expect(events[2]).toMatchObject({ reason: atSend[i].reason });
      expect(events[2].details).toMatchObject({ stage: 'provider', provider: 'sandbox' });
      // a rejection is final: no retry
      expect(calls().get(id)).toBe(1);
    }
    for (const [i, id] of reportIds.entries()) {
      const { row, events } = await final(id);
      expect(row, byReport[i].body.to).toMatchObject({ status: 'failed', reason: byReport[i].reason, provider: 'sandbox', provider_message_id: `sbx_${id}` });
      expect(row.sent_at).not.toBeNull();
      expect(types(events)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageSent', 'MessageFailed']);
      expect(events[3].details).toMatchObject({ stage: 'report', provider: 'sandbox' });
      expect(calls().get(id)).toBe(1);
    }
  });

  it('a complaint is delivered and suppresses the address', async () => {
    const id = await send({ to: 'complaint@sandbox.engage.test', channel: 'email', subject: 's', message: 'x', transactional: false });
    const { row, events } = await final(id);
    expect(row.status).toBe('delivered');
    expect(types(events)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);
    const { rows } = await eventually('the suppression', async () => {
      const r = await server.engage.pool.query<{ reason: string }>('SELECT reason FROM suppressions WHERE address = $1', ['complaint@sandbox.engage.test']);
      return r.rows.length ? r : undefined;
    });
    expect(rows[0].reason).toBe('complaint');
    // and the next message to it fails on policy, without reaching the provider
    const next = await send({ to: 'complaint@sandbox.engage.test', channel: 'email', subject: 's', message: 'again' });
    const after = await final(next);
    expect(after.row).toMatchObject({ status: 'failed', reason: 'suppressed' });
    expect(calls().has(next)).toBe(false);
  });

  it(`retries a transient provider error with backoff, then fails after ${MAX_ATTEMPTS} attempts`, async () => {
    for (const body of [
      { to: '+15005550002', channel: 'sms', message: 'x' },
      { to: 'transient@sandbox.engage.test', channel: 'email', subject: 's', message: 'x' },
    ]) {
      const id = await send(body);
      const { row, events } = await final(id);
      const error = body.channel === 'sms' ? SANDBOX_RECIPIENTS.phone['+15005550002'].reason : SANDBOX_RECIPIENTS.email['transient@sandbox.engage.test'].reason;
      expect(row.status).toBe('failed');
      expect(row.reason).toMatch(/^provider_unavailable/);
      expect(row.reason).toContain(error);
      expect(row.attempts).toBe(MAX_ATTEMPTS);
      expect(types(events)).toEqual([
        'MessageAccepted',
        'MessageDispatching', 'MessageDispatchDeferred',
        'MessageDispatching', 'MessageDispatchDeferred',
        'MessageDispatching', 'MessageFailed',
      ]);
      expect(calls().get(id)).toBe(MAX_ATTEMPTS);
      const claims = events.filter((e) => e.type === 'MessageDispatching');
      const defers = events.filter((e) => e.type === 'MessageDispatchDeferred');
      expect(claims.map((e) => e.details.attempt)).toEqual([1, 2, 3]);
      // backoff doubles: base, then 2 × base; and no claim comes before its retry time
      defers.forEach((d, i) => {
        expect(Date.parse(d.details.retry_at) - Date.parse(d.at)).toBe(BASE_MS * 2 ** i);
        expect(Date.parse(claims[i + 1].at)).toBeGreaterThanOrEqual(Date.parse(d.details.retry_at));
        expect(d.reason).toContain(error);
      });
      expect(events[6].details).toMatchObject({ stage: 'provider' });
    }
  });
});
