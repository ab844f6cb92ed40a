// Every DELETE the app serves, walked from its own route list: one that removes the resource its
// path names answers 200 {id, deleted: true}. A DELETE route added later fails here until it is
// given a way to make what it deletes and its answer (README "API conventions").
import { beforeAll, describe, expect, it } from 'vitest';
import { routesOf } from '../../src/http/route.ts';
import { testServerForSuite } from '../support/harness.ts';
import type { TestAccount } from '../support/accounts.ts';

const server = testServerForSuite({ WEBHOOK_ALLOW_PRIVATE: 'true' });
let a: TestAccount;

beforeAll(async () => {
  a = await server.newAccount();
});

async function created(path: string, body: unknown): Promise<{ id: string }> {
  const res = await server.call('POST', path, { key: a.key, body });
  expect(res.status, `POST ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

interface Deletion {
  /** makes what the route deletes: the path to send DELETE to, and the answer expected */
  make(): Promise<{ path: string; answer: unknown }>;
  /** it answers {id, deleted: true}, as the OpenAPI document says */
  removes?: true;
}

/** A route that deletes the resource named by its :id: the answer every such route gives. */
const removes = (collection: string, body: unknown): Deletion => ({
  removes: true,
  async make() {
    const { id } = await created(collection, body);
    return { path: `${collection}/${id}`, answer: { id, deleted: true } };
  },
});

const rules = { match: 'all', rules: [{ field: 'tag', operator: 'has', value: 'vip' }] };

const DELETIONS: Record<string, Deletion> = {
  '/v1/contacts/:id': removes('/v1/contacts', { email: 'gone@example.com' }),
  '/v1/contacts/fields/:id': removes('/v1/contacts/fields', { key: 'shoe_size', label: 'Shoe size', type: 'number' }),
  '/v1/lists/:id': removes('/v1/lists', { name: 'Gone' }),
  '/v1/segments/:id': removes('/v1/segments', { name: 'Gone', rules }),
  '/v1/templates/:id': removes('/v1/templates', { name: 'Gone', channel: 'sms', text: 'Hi {{ contact.first_name }}' }),
  '/v1/webhook-endpoints/:id': removes('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9999/hook' }),
  '/v1/account/email-domains/:id': removes('/v1/account/email-domains', { domain: 'gone.example.com' }),
  '/v1/account/link-domains/:id': removes('/v1/account/link-domains', { domain: 'links.gone.example.com' }),
  '/v1/integrations/:id': removes('/v1/integrations', { provider: 'smtp', credentials: { url: 'smtps://mailer:s3cret@smtp.acme.test:465' } }),
  '/v1/senders/:id': removes('/v1/senders', { sender: '+14155550123', channel: 'sms', country: 'US' }),
  '/v1/forms/:id': {
    removes: true,
    async make() {
      const list = await created('/v1/lists', { name: 'Form list' });
      const { id } = await created('/v1/forms', { name: 'Gone', fields: [{ name: 'email' }], list_id: list.id, consent_text: 'I agree.' });
      return { path: `/v1/forms/${id}`, answer: { id, deleted: true } };
    },
  },
  // the deletes whose answers are their own, as README documents them
  '/v1/account/api-keys/:id': {
    async make() {
      const { id } = await created('/v1/account/api-keys', { name: 'doomed' });
      return { path: `/v1/account/api-keys/${id}`, answer: { id, revoked: true } };
    },
  },
  '/v1/lists/:id/contacts/:contactId': {
    async make() {
      const list = await created('/v1/lists', { name: 'Members' });
      const contact = await created('/v1/contacts', { email: 'member@example.com' });
      await created(`/v1/lists/${list.id}/contacts`, { contact_id: contact.id });
      return { path: `/v1/lists/${list.id}/contacts/${contact.id}`, answer: expect.objectContaining({ id: list.id, member_count: 0 }) };
    },
  },
  '/v1/contacts/:id/devices/:device_id': {
    async make() {
      const contact = await created('/v1/contacts', { email: 'device.owner@example.com' });
      const device = await created(`/v1/contacts/${contact.id}/devices`, { token: 'fcm:device-token-of-the-delete-answers-test', platform: 'android' });
      return { path: `/v1/contacts/${contact.id}/devices/${device.id}`, answer: { id: device.id, deleted: true } };
    },
    removes: true,
  },
  '/v1/messages/:id': {
    async make() {
      const scheduled_at = new Date(Date.now() + 3_600_000).toISOString();
      const { id } = await created('/v1/messages/send', { to: '+14155550130', channel: 'sms', message: 'later', scheduled_at });
      return { path: `/v1/messages/${id}`, answer: { id, status: 'cancelled', cancelled_at: expect.any(String) } };
    },
  },
  '/v1/account/unsubscribes/:address': {
    async make() {
      await created('/v1/account/unsubscribes', { email: 'ada@example.com' });
      return { path: `/v1/account/unsubscribes/${encodeURIComponent('ada@example.com')}`, answer: { address: 'ada@example.com', channel: 'email', deleted: true } };
    },
  },
};

/** DELETE routes that delete nothing: MCP's transport refuses the method (405), it has no sessions to end. */
const NOT_DELETIONS = ['/v1/mcp'];

describe('DELETE answers', () => {
  it('every DELETE route is known here', () => {
    const routes = routesOf(server.app).filter((r) => r.method === 'DELETE' && !NOT_DELETIONS.includes(r.url)).map((r) => r.url);
    expect(routes.sort()).toEqual(Object.keys(DELETIONS).sort());
  });

  it.each(Object.keys(DELETIONS))('DELETE %s answers 200 with what it deleted', async (route) => {
    const { path, answer } = await DELETIONS[route]!.make();
    const res = await server.call('DELETE', path, { key: a.key });
    expect(res.status, `DELETE ${path}: ${JSON.stringify(res.body)}`).toBe(200);
    expect(res.body).toEqual(answer);
  });

  it('the OpenAPI document shows {id, deleted: true} as the answer of each that removes a resource', async () => {
    const doc = (await server.call('GET', '/v1/openapi.json')).body;
    for (const [route, deletion] of Object.entries(DELETIONS)) {
      if (!deletion.removes) continue;
      const schema = doc.paths[route.replace(/:(\w+)/g, '{$1}')].delete.responses['200'].content['application/json'].schema;
      expect(schema, route).toMatchObject({ type: 'object', required: ['id', 'deleted'], properties: { id: { type: 'string' } } });
      // `deleted` can only be true (JSON Schema says so with const, or with an enum of one)
      expect(schema.properties.deleted.const ?? schema.properties.deleted.enum, route).toEqual(schema.properties.deleted.const === undefined ? [true] : true);
    }
  });
});
