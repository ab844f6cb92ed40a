// The APNs provider (src/channels/apns.ts, README "Integrations") against a local double of Apple's
// provider API over HTTP/2 and TLS (test/support/push-apis.ts, trusted through its certificate as
// APNS_CA_FILE would be): the ES256 provider token reused for 50 minutes and replaced when Apple
// calls it expired, one session for many sends and a new one after GOAWAY, and Apple's reasons
// mapped to outcomes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApnsProvider, apnsBase, apnsIdOf } from '../../src/channels/apns.ts';
import type { OutboundMessage } from '../../src/channels/port.ts';
import { newId } from '../../src/ids.ts';
import { APNS_ANSWERS, apnsDeviceToken, startApnsDouble, testApnsKey, type ApnsDouble } from '../support/push-apis.ts';

const { credentials, publicKey } = testApnsKey();
let clock = Date.now();
const now = () => clock;
let double: ApnsDouble;
const providers: ApnsProvider[] = [];

beforeAll(async () => {
  double = await startApnsDouble({ keyId: credentials.key_id, teamId: credentials.team_id, topic: credentials.topic, publicKey }, now);
});
afterAll(async () => {
  await Promise.all(providers.map((p) => p.close()));
  await double?.close();
});

const provider = (more: Partial<typeof credentials> = {}) => {
  const p = new ApnsProvider({ ...credentials, ...more }, { apiBase: double.url, ca: double.ca, timeoutMs: 5_000, now });
  providers.push(p);
  return p;
};
const push = (to = apnsDeviceToken(), more: Partial<OutboundMessage> = {}): OutboundMessage => ({ id: newId('message'), accountId: 'acc_test', channel: 'push', to, message: 'Your order shipped', ...more });
const jwtsOf = (from: number) => new Set(double.sent.slice(from).map((s) => s.jwt));

describe('sending through APNs', () => {
  it('posts the alert over HTTP/2 with a provider token Apple verifies: accepted, with the apns-id', async () => {
    const message = push(undefined, { subject: 'Order 1042' });
    const outcome = await provider().send(message);
    const apnsId = apnsIdOf(message.id, message.to);
    expect(outcome).toEqual({ kind: 'accepted', providerMessageId: apnsId });
    const sent = double.sent.find((s) => s.token === message.to)!;
    expect(sent.headers).toMatchObject({ ':path': `/3/device/${message.to}`, 'apns-topic': credentials.topic, 'apns-push-type': 'alert', 'apns-priority': '10', 'apns-id': apnsId });
    expect(sent.json).toEqual({ aps: { alert: { title: 'Order 1042', body: 'Your order shipped' } }, engage_message_id: message.id });
  });

  it('derives the apns-id from the message id: a re-send carries the same one', async () => {
    const message = push();
    const apns = provider();
    await apns.send(message);
    await apns.send(message);
    const ids = double.sent.filter((s) => s.token === message.to).map((s) => s.headers['apns-id']);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
    expect(apnsIdOf(newId('message'), message.to)).not.toBe(ids[0]);
  });

  it('one provider token and one session for many sends, concurrent ones included', async () => {
    const apns = provider();
    const from = double.sent.length;
    const sessions = double.sessions;
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => apns.send(push())));
    for (let i = 0; i < 5; i++) outcomes.push(await apns.send(push()));
    expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
    expect(jwtsOf(from).size).toBe(1);
    expect(double.sessions - sessions).toBe(1);
  });

  it('replaces the provider token after 50 minutes, before Apple would refuse it', async () => {
    const apns = provider();
    const from = double.sent.length;
    await apns.send(push());
    clock += 49 * 60_000;
    await apns.send(push());
    expect(jwtsOf(from).size).toBe(1);
    clock += 2 * 60_000;
    expect((await apns.send(push())).kind).toBe('accepted');
    expect(jwtsOf(from).size).toBe(2);
    expect(double.refused).not.toContain('ExpiredProviderToken');
  });

  it('ExpiredProviderToken: a new token and one more try', async () => {
    const apns = provider();
    await apns.send(push());
    double.expireTokens();
    clock += 1000;
    const refused = double.refused.length;
    const message = push();
    expect((await apns.send(message)).kind).toBe('accepted');
    expect(double.refused.slice(refused)).toEqual(['ExpiredProviderToken']);
    expect(double.sent.filter((s) => s.token === message.to)).toHaveLength(1);
  });

  it('a token Apple refuses on the second try too is transient', async () => {
    const other = testApnsKey().credentials;
    const outcome = await provider({ key_p8: other.key_p8 }).send(push());
    expect(outcome).toEqual({ kind: 'transient', error: '403 InvalidProviderToken' });
    expect(double.refused.slice(-2)).toEqual(['InvalidProviderToken', 'InvalidProviderToken']);
  });

  it('opens a new session once Apple sends GOAWAY', async () => {
    const apns = provider();
    await apns.send(push());
    const sessions = double.sessions;
    double.goAway();
    await new Promise((r) => setTimeout(r, 100));
    expect((await apns.send(push())).kind).toBe('accepted');
    expect(double.sessions - sessions).toBe(1);
  });

  it('close() closes the session; a server that cannot be reached is transient', async () => {
    const apns = provider();
    await apns.send(push());
    await apns.close();
    expect((await apns.send(push())).kind).toBe('transient');
    const unreachable = new ApnsProvider(credentials, { apiBase: 'https://127.0.0.1:9', timeoutMs: 2_000, now });
    expect((await unreachable.send(push())).kind).toBe('transient');
    await unreachable.close();
  });

  it('Apple\'s host follows the environment unless APNS_API_BASE is set', () => {
    expect(apnsBase(undefined, undefined)).toBe('https://api.push.apple.com');
    expect(apnsBase(undefined, 'sandbox')).toBe('https://api.sandbox.push.apple.com');
    expect(apnsBase('https://127.0.0.1:8443', 'sandbox')).toBe('https://127.0.0.1:8443');
  });
});

describe("Apple's reasons", () => {
  it('410 Unregistered is refused for good as unregistered', async () => {
    const token = apnsDeviceToken();
    double.script.add(token, APNS_ANSWERS.unregistered());
    expect(await provider().send(push(token))).toEqual({ kind: 'rejected', code: 'unregistered', reason: 'unregistered: 410 Unregistered' });
  });

  it('BadDeviceToken and DeviceTokenNotForTopic are refused as invalid_token', async () => {
    const [bad, foreign] = [apnsDeviceToken(), apnsDeviceToken()];
    double.script.add(bad, APNS_ANSWERS.badDeviceToken());
    double.script.add(foreign, APNS_ANSWERS.notForTopic());
    const apns = provider();
    expect(await apns.send(push(bad))).toEqual({ kind: 'rejected', code: 'invalid_token', reason: 'invalid_token: 400 BadDeviceToken' });
    expect(await apns.send(push(foreign))).toEqual({ kind: 'rejected', code: 'invalid_token', reason: 'invalid_token: 400 DeviceTokenNotForTopic' });
  });

  it('another refusal of the request keeps Apple\'s reason as its code (a wrong topic)', async () => {
    expect(await provider({ topic: 'com.example.other' }).send(push())).toEqual({ kind: 'rejected', code: 'BadTopic', reason: '400 BadTopic' });
  });

  it('429 TooManyRequests is transient with its Retry-After; 503 transient', async () => {
    const token = apnsDeviceToken();
    double.script.add(token, APNS_ANSWERS.tooManyRequests('120'), APNS_ANSWERS.unavailable());
    const apns = provider();
    expect(await apns.send(push(token))).toEqual({ kind: 'transient', error: '429 TooManyRequests', retryAfterMs: 120_000 });
    expect(await apns.send(push(token))).toEqual({ kind: 'transient', error: '503 ServiceUnavailable' });
    expect((await apns.send(push(token))).kind).toBe('accepted');
  });
});
