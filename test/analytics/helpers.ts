// The analytics tests' kit: a real server whose clock a test sets (so events fall on the UTC days it
// chooses), sends through the sandbox waited on until they settle, and a bulk of email outcomes
// appended straight to the log for volume.
import { expect } from 'vitest';
import { messageDecider } from '../../commands/message.ts';
import type { SuppressionEvent } from '../../commands/suppression.ts';
import type { Clock } from '../../src/clock.ts';
import { newId } from '../../src/ids.ts';
import { decideAll } from '../support/decider-spec.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { messagesById } from '../support/messages.ts';
import { until } from '../support/waits.ts';

/** A clock that runs at the wall clock's pace from whatever instant a test sets. */
export class SettableClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  set(at: Date): void {
    this.offsetMs = at.getTime() - Date.now();
  }
}

/** A test server running on `clock`. */
export const startClockedServer = (clock: Clock, overrides: Record<string, string> = {}): Promise<TestServer> => startTestServer(overrides, undefined, clock);

/** Noon (UTC) of a YYYY-MM-DD day: far from either midnight, so a test's minutes stay on that day. */
export const noonOf = (day: string) => new Date(`${day}T12:00:00.000Z`);

/** Sends one transactional message (no marketing caps or quiet hours) and returns its id. */
export async function send(server: TestServer, key: string, channel: string, to: string, extra: Record<string, unknown> = {}): Promise<string> {
  const body = { channel, to, message: 'Hello', transactional: true, ...(channel === 'email' ? { subject: 'Hello' } : {}), ...extra };
  const res = await server.call('POST', '/v1/messages/send', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id as string;
}

/** Waits until every message has its final status (delivered or failed); returns the statuses by id. */
export async function settled(server: TestServer, key: string, ids: readonly string[]): Promise<Record<string, string>> {
  const statuses = await until(
    async () => Object.fromEntries((await messagesById(server, key, ids)).map((m, i) => [ids[i], m?.status as string])),
    (s) => Object.values(s).every((status) => status === 'delivered' || status === 'failed'),
    60_000,
  );
  expect(Object.values(statuses).every((s) => s === 'delivered' || s === 'failed'), JSON.stringify(statuses)).toBe(true);
  return statuses;
}

/**
 * Appends, straight to the log, `delivered` delivered and `bounced` bounced email messages (and
 * `complaints` complaints, each about another address) of the account at `at`: the volume the
 * health thresholds need, the way the dispatcher and the feedback loop would have written it.
 */
export async function appendEmailOutcomes(server: TestServer, accountId: string, at: Date, n: { delivered?: number; bounced?: number; complaints?: number }): Promise<void> {
  const iso = at.toISOString();
  const batch: { streamId: string; events: { type: string; data: unknown }[] }[] = [];
  const message = (outcome: 'delivered' | 'bounced') => {
    const id = newId('message');
    // the events as the decider writes them (a sent, then its report)
    const { events: decided } = decideAll(messageDecider, messageDecider.initialState, [
      { type: 'Accept', data: { id, account_id: accountId, channel: 'email', to: 'volume@inbox.test', message: 'Hi', subject: 'Hi', transactional: true, status: 'queued', created_at: iso } },
      { type: 'Claim', worker: 'volume', now: at, leaseMs: 60_000 },
      { type: 'RecordSent', now: at, provider: 'sandbox', providerMessageId: `sbx_${id}` },
      outcome === 'delivered' ? { type: 'RecordDelivered', now: at, provider: 'sandbox' } : { type: 'RecordFailed', now: at, reason: 'bounced', stage: 'report', provider: 'sandbox' },
    ]);
    batch.push({ streamId: `message-${id}`, events: decided.filter((e) => e.type !== 'MessageDispatching') });
  };
  for (let i = 0; i < (n.delivered ?? 0); i++) message('delivered');
  for (let i = 0; i < (n.bounced ?? 0); i++) message('bounced');
  for (let i = 0; i < (n.complaints ?? 0); i++) {
    const hash = newId('message').toLowerCase();
    const complaint: SuppressionEvent = { type: 'RecipientSuppressed', data: { account_id: accountId, address_hash: hash, channel: 'email', reason: 'complaint', source: 'sandbox', at: iso } };
    batch.push({ streamId: `suppression-${accountId}:${hash}`, events: [complaint] });
  }
  for (let i = 0; i < batch.length; i += 250) await server.engage.store.appendMany(batch.slice(i, i + 250));
  await server.caughtUp(['analytics']);
}
