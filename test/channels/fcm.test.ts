// The FCM provider (src/channels/fcm.ts, README "Integrations") against a local double of Google's
// token endpoint and FCM's HTTP v1 API (test/support/push-apis.ts): the OAuth 2.0 JWT-bearer
// exchange signed by the service account's key, one access token for many sends until it is about to
// run out, a new one after a 401, and FCM's errors mapped to outcomes.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FcmProvider } from '../../src/channels/fcm.ts';
import type { OutboundMessage } from '../../src/channels/port.ts';
import { newId } from '../../src/ids.ts';
import { FCM_ANSWERS, FCM_SCOPE, fcmDeviceToken, startFcmDouble, testServiceAccount, type FcmDouble } from '../support/push-apis.ts';

const { serviceAccount, publicKey } = testServiceAccount();
let clock = Date.parse('2026-03-01T10:00:00.000Z');
const now = () => clock;
let double: FcmDouble;

beforeAll(async () => {
  double = await startFcmDouble({ projectId: serviceAccount.project_id, clientEmail: serviceAccount.client_email, publicKey }, now);
});
afterAll(async () => {
  await double?.close();
});
beforeEach(() => {
  double.expiresIn = 3599;
});

const provider = (account: Partial<typeof serviceAccount> = serviceAccount) =>
  new FcmProvider(
    { project_id: account.project_id!, client_email: account.client_email!, private_key: account.private_key!, private_key_id: account.private_key_id! },
    { apiBase: double.url, tokenUrl: double.tokenUrl, timeoutMs: 5_000, now },
  );
const push = (to = fcmDeviceToken(), more: Partial<OutboundMessage> = {}): OutboundMessage => ({ id: newId('message'), accountId: 'acc_test', channel: 'push', to, message: 'Your order shipped', ...more });

describe('sending through FCM HTTP v1', () => {
  it('gets an access token with a signed assertion and sends the notification with it: accepted, with the message name', async () => {
    const before = double.tokenRequests.length;
    const message = push(undefined, { subject: 'Order 1042' });
    const outcome = await provider().send(message);
    expect(outcome).toEqual({ kind: 'accepted', providerMessageId: expect.stringMatching(new RegExp(`^projects/${serviceAccount.project_id}/messages/`)) });
    expect(double.tokenRequests.slice(before)).toEqual([
      {
        iss: serviceAccount.client_email,
        scope: FCM_SCOPE,
        aud: double.tokenUrl,
        iat: Math.floor(clock / 1000),
        exp: Math.floor(clock / 1000) + 3600,
        kid: serviceAccount.private_key_id,
      },
    ]);
    const sent = double.sent.find((s) => s.token === message.to)!;
    expect(sent.authorization).toMatch(/^Bearer ya29\./);
    expect(sent.json).toEqual({ message: { token: message.to, notification: { title: 'Order 1042', body: 'Your order shipped' }, data: { engage_message_id: message.id } } });
  });

  it('leaves the title out when the message has no subject', async () => {
    const message = push();
    await provider().send(message);
    expect(double.sent.find((s) => s.token === message.to)!.json.message.notification).toEqual({ body: 'Your order shipped' });
  });

  it('one token request for many sends, concurrent ones included', async () => {
    const fcm = provider();
    const before = double.tokenRequests.length;
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => fcm.send(push())));
    for (let i = 0; i < 5; i++) outcomes.push(await fcm.send(push()));
    expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
    expect(double.tokenRequests.length - before).toBe(1);
  });

  it('asks for a new token shortly before the old one runs out, not after FCM refuses it', async () => {
    const fcm = provider();
    const before = double.tokenRequests.length;
    const refusedBefore = double.sent.length;
    await fcm.send(push());
    clock += 3_500_000; // the token has 99 s left: kept
    await fcm.send(push());
    expect(double.tokenRequests.length - before).toBe(1);
    clock += 60_000; // 39 s left: replaced first
    expect((await fcm.send(push())).kind).toBe('accepted');
    expect(double.tokenRequests.length - before).toBe(2);
    expect(double.sent.length - refusedBefore).toBe(3);
  });

  it('a 401 drops the token, gets a new one and tries once more', async () => {
    const fcm = provider();
    await fcm.send(push());
    const before = double.tokenRequests.length;
    double.revokeTokens();
    const message = push();
    expect((await fcm.send(message)).kind).toBe('accepted');
    expect(double.tokenRequests.length - before).toBe(1);
    // concurrent sends that all meet the revoked token share the new one
    double.revokeTokens();
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => fcm.send(push())));
    expect(outcomes.map((o) => o.kind)).toEqual(Array(5).fill('accepted'));
    expect(double.tokenRequests.length - before).toBe(2);
  });

  it('a 401 on the second try too is transient (our credentials), with FCM\'s words', async () => {
    double.expiresIn = 0; // every token it gives is refused at once
    const fcm = provider();
    const before = double.tokenRequests.length;
    const outcome = await fcm.send(push());
    expect(outcome).toMatchObject({ kind: 'transient', error: expect.stringMatching(/^401 UNAUTHENTICATED: Request had invalid authentication credentials/) });
    expect(double.tokenRequests.length - before).toBe(2);
  });

  it('a key the token endpoint refuses is transient, with the endpoint\'s error', async () => {
    const other = testServiceAccount(serviceAccount.project_id).serviceAccount;
    const outcome = await provider({ ...serviceAccount, private_key: other.private_key }).send(push());
    expect(outcome).toEqual({ kind: 'transient', error: 'access token request: 400 invalid_grant: Invalid JWT Signature.' });
    expect(double.refusedAssertions.at(-1)).toMatch(/signature/i);
  });
});

describe("FCM's errors", () => {
  it('UNREGISTERED is refused for good as unregistered', async () => {
    const token = fcmDeviceToken();
    double.script.add(token, FCM_ANSWERS.unregistered());
    expect(await provider().send(push(token))).toEqual({ kind: 'rejected', code: 'unregistered', reason: 'unregistered: 404 UNREGISTERED: Requested entity was not found.' });
  });

  it('INVALID_ARGUMENT about the token is refused as invalid_token; SENDER_ID_MISMATCH as sender_id_mismatch', async () => {
    const bad = fcmDeviceToken();
    const foreign = fcmDeviceToken();
    double.script.add(bad, FCM_ANSWERS.invalidToken());
    double.script.add(foreign, FCM_ANSWERS.senderIdMismatch());
    const fcm = provider();
    expect(await fcm.send(push(bad))).toMatchObject({ kind: 'rejected', code: 'invalid_token', reason: expect.stringMatching(/^invalid_token: 400 INVALID_ARGUMENT: The registration token is not a valid/) });
    expect(await fcm.send(push(foreign))).toMatchObject({ kind: 'rejected', code: 'sender_id_mismatch' });
  });

  it('429 QUOTA_EXCEEDED is transient with its Retry-After, in seconds or as an HTTP date', async () => {
    const token = fcmDeviceToken();
    double.script.add(token, FCM_ANSWERS.quotaExceeded('30'), FCM_ANSWERS.quotaExceeded(new Date(clock + 90_000).toUTCString()));
    const fcm = provider();
    expect(await fcm.send(push(token))).toEqual({ kind: 'transient', error: '429 QUOTA_EXCEEDED: Quota exceeded for quota metric', retryAfterMs: 30_000 });
    expect(await fcm.send(push(token))).toMatchObject({ kind: 'transient', retryAfterMs: 90_000 });
    // the quota passed: taken
    expect((await fcm.send(push(token))).kind).toBe('accepted');
  });

  it('503 UNAVAILABLE is transient; a server that cannot be reached too', async () => {
    const token = fcmDeviceToken();
    double.script.add(token, FCM_ANSWERS.unavailable());
    expect(await provider().send(push(token))).toEqual({ kind: 'transient', error: '503 UNAVAILABLE: The service is currently unavailable.' });
    const unreachable = new FcmProvider(
      { project_id: serviceAccount.project_id, client_email: serviceAccount.client_email, private_key: serviceAccount.private_key },
      { apiBase: 'http://127.0.0.1:9', tokenUrl: 'http://127.0.0.1:9/token', timeoutMs: 2_000, now },
    );
    expect((await unreachable.send(push())).kind).toBe('transient');
  });
});
