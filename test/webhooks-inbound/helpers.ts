// Helpers for the inbound provider callback tests. The signatures here are written from the
// providers' documentation, independently of src/http/routes/providers/:
//  - Twilio: https://www.twilio.com/docs/usage/webhooks/webhooks-security — HMAC-SHA1 (base64) keyed
//    with the auth token over the full URL followed by every POST parameter, sorted by name, as
//    name immediately followed by value.
//  - Meta: X-Hub-Signature-256 = "sha256=" + hex HMAC-SHA256 of the raw payload, keyed with the app secret.
import crypto from 'node:crypto';
import { expect } from 'vitest';
import type { TestServer } from '../support/harness.ts';
import { until } from '../support/waits.ts';

export const SECRETS = {
  WEBHOOK_SECRET_SANDBOX: 'sandbox-secret-0123456789abcdef',
  WEBHOOK_SECRET_SMTP: 'smtp-feedback-secret-0123456789',
  WEBHOOK_SECRET_CARRIER: 'carrier-auth-token-0123456789abcd',
  WEBHOOK_SECRET_WHATSAPP: 'whatsapp-app-secret-0123456789ab',
  WHATSAPP_VERIFY_TOKEN: 'verify-me-please',
};

/** Sandbox reports would otherwise deliver every message after 50 ms; here they stay `sent`. */
export const HOLD_SANDBOX = { SANDBOX_DELIVERY_DELAY_MS: '600000' };

/** Sends one message and waits until the sandbox has accepted it (status sent). */
export async function sendAndWaitSent(server: TestServer, key: string, body: Record<string, unknown>): Promise<{ id: string; providerMessageId: string }> {
  const res = await server.call('POST', '/v1/messages/send', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const id = res.body.id as string;
  // (a 404 while the read model catches up, or queued, are both "not yet")
  const sent = await until(() => server.call('GET', `/v1/messages/${id}`, { key }), (r) => ['sent', 'delivered', 'failed', 'cancelled'].includes(r.body?.status));
  expect(sent.body.status, JSON.stringify(sent.body)).toBe('sent');
  expect(sent.body.provider_message_id).toMatch(/^sbx_msg_/);
  return { id, providerMessageId: sent.body.provider_message_id };
}

export async function statusOf(server: TestServer, key: string, id: string, until_?: string) {
  if (!until_) return (await server.call('GET', `/v1/messages/${id}`, { key })).body;
  return (await until(() => server.call('GET', `/v1/messages/${id}`, { key }), (r) => r.body?.status === until_)).body;
}

/** A well-formed message id that no message has. */
export const UNKNOWN_MESSAGE_ID = 'msg_01ARZ3NDEKTSV4RRFFQ69G5FAV';

// ---------------------------------------------------------------------------------------------
// independent signing

export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const names = Object.keys(params).sort();
  const signed = url + names.map((n) => `${n}${params[n]}`).join('');
  return crypto.createHmac('sha1', authToken).update(signed, 'utf8').digest('base64');
}

export function metaSignature(appSecret: string, rawBody: string | Buffer): string {
  return 'sha256=' + crypto.createHmac('sha256', appSecret).update(rawBody).digest('hex');
}

export function postForm(server: TestServer, path: string, params: Record<string, string>, headers: Record<string, string> = {}) {
  return server.call('POST', path, {
    raw: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', ...headers },
  });
}

/** Posts a Twilio-style status callback signed over `signUrl` (default: the URL it is sent to). */
export function postCarrier(server: TestServer, params: Record<string, string>, opts: { secret?: string; signUrl?: string; path?: string; signature?: string } = {}) {
  const path = opts.path ?? '/v1/webhooks/carrier';
  const signature = opts.signature ?? twilioSignature(opts.secret ?? SECRETS.WEBHOOK_SECRET_CARRIER, opts.signUrl ?? `${server.url}${path}`, params);
  return postForm(server, path, params, { 'x-carrier-signature': signature });
}

/**
 * A WhatsApp Cloud API webhook payload with one change whose `value` carries what is given (statuses,
 * inbound messages, contacts), addressed to the business number 15550783881 unless `metadata` names another.
 */
export function whatsappPayload(value: { statuses?: Record<string, unknown>[]; messages?: Record<string, unknown>[]; contacts?: Record<string, unknown>[]; metadata?: Record<string, unknown> }) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
              ...value,
            },
          },
        ],
      },
    ],
  };
}

export function postWhatsApp(server: TestServer, raw: string, opts: { secret?: string; signature?: string | null } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const signature = opts.signature === undefined ? metaSignature(opts.secret ?? SECRETS.WEBHOOK_SECRET_WHATSAPP, raw) : opts.signature;
  if (signature !== null) headers['x-hub-signature-256'] = signature;
  return server.call('POST', '/v1/webhooks/whatsapp', { raw, headers });
}
