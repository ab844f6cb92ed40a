// Browser tracking from the tests' side: the account's key and identity secret over the API, the
// user_hash a customer's backend would compute, and what landed on a contact, read back through the
// API (the contact by email, its events counted by a segment preview) and its stream.
import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import { contactStream } from '../../commands/contact.ts';
import type { TestServer } from '../support/harness.ts';

export interface TrackingKey {
  key: string;
  origins: string[];
  require_identity: boolean;
  snippet: string;
  script_url: string;
  ingest_url: string;
}

export async function trackingKey(server: TestServer, apiKey: string): Promise<TrackingKey> {
  const res = await server.call('GET', '/v1/account/tracking-key', { key: apiKey });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

export async function identitySecret(server: TestServer, apiKey: string): Promise<string> {
  const res = await server.call('GET', '/v1/account/tracking-identity', { key: apiKey });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.secret;
}

/** What the customer's backend computes (README "Browser tracking"), written here independently of the service's code. */
export const userHash = (secret: string, identifier: string) => createHmac('sha256', secret).update(identifier).digest('hex');

/** The account's contact with this email, as GET /v1/contacts shows it (undefined when there is none). */
export async function contactByEmail(server: TestServer, apiKey: string, email: string): Promise<Record<string, any> | undefined> {
  const res = await server.call('GET', `/v1/contacts?email=${encodeURIComponent(email)}`, { key: apiKey });
  expect(res.status).toBe(200);
  return res.body.data[0];
}

/** How many contacts with this email performed the event at least `count` times (a segment preview). */
export async function performed(server: TestServer, apiKey: string, email: string, name: string, count = 1): Promise<number> {
  const rules = { match: 'all', rules: [{ field: 'contact.email', operator: 'eq', value: email }, { field: `event.${name}`, operator: 'performed', count }] };
  const res = await server.call('POST', '/v1/segments/preview', { key: apiKey, body: { rules } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.count;
}

/** The contact's tracked events with their (opened) properties, in order. */
export async function trackedEvents(server: TestServer, contactId: string): Promise<{ name: string; properties: Record<string, unknown>; actor?: string }[]> {
  const events = await server.engage.store.readStream(contactStream(contactId));
  return events
    .filter((e) => e.type === 'EventTracked')
    .map((e) => ({ name: (e.data as any).name, properties: (e.data as any).properties, actor: e.metadata?.actor }));
}
