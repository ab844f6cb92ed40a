// Sending from a template (README "Templates"): a send, a bulk and a send-by-tag name a template and
// data, and each recipient gets the message rendered from its own contact (standard and custom
// fields), the account and the data, as a real SMTP server receives it; a missing template, content
// given beside one, another channel and (strict) missing variables are the send's 400 or the bulk
// item's failure, naming what is wrong; the message records the version it came from.
import { describe, expect, it } from 'vitest';
import { messageStream } from '../../commands/message.ts';
import { expectRejected } from '../support/http.ts';
import { eventually } from '../support/waits.ts';
import { mailSuite } from './mail-suite.ts';

const suite = mailSuite();
const { ok } = suite;

const received = (messageId: string) => eventually(`the mail of ${messageId}`, async () => suite.smtp.find(messageId)?.mail, 60_000);

const ORDER = {
  name: 'Order shipped',
  channel: 'email',
  subject: '{{ contact.first_name | default: "Hello" }}, order {{ data.order_id }} is on its way',
  text: 'Hi {{ contact.first_name }} ({{ contact.custom.tier }}), order {{ data.order_id }} from {{ account.name }}. Ref {{ message.id }}.',
  html: '<p>Hi {{ contact.first_name }}</p><p>{{ data.order_id }}</p>',
};

/** An account with a custom field, two contacts and the order template. */
async function setUp() {
  const { key, accountId, email } = await suite.server.newAccount('Shop & Co');
  await ok(key, 'POST', '/v1/contacts/fields', { key: 'tier', label: 'Tier', type: 'text' }, 201);
  const ada = await ok(key, 'POST', '/v1/contacts', { email: 'ada@example.com', first_name: 'Ada <3', custom_fields: { tier: 'gold' }, tags: ['vip'] }, 201);
  const bob = await ok(key, 'POST', '/v1/contacts', { email: 'bob@example.com', first_name: 'Bob', custom_fields: { tier: 'silver' }, tags: ['vip'] }, 201);
  const template = await ok(key, 'POST', '/v1/templates', ORDER, 201);
  return { key, accountId, email, ada, bob, template };
}

describe('a send from a template', () => {
  it("renders the recipient's contact, the account and the data into the mail it receives, and records the version", async () => {
    const { key, template } = await setUp();
    const sent = await ok(key, 'POST', '/v1/messages/send', { to: 'Ada@Example.com', template_id: template.id, data: { order_id: 'A-17' }, transactional: true }, 202);
    expect(sent).toMatchObject({ channel: 'email', to: 'ada@example.com', status: 'queued' });
    const mail = await received(sent.id);
    expect(mail.subject).toBe('Ada <3, order A-17 is on its way');
    expect(mail.text?.trim()).toBe(`Hi Ada <3 (gold), order A-17 from Shop & Co. Ref ${sent.id}.`);
    expect(mail.html).toContain('<p>Hi Ada &lt;3</p><p>A-17</p>');
    const message = await ok(key, 'GET', `/v1/messages/${sent.id}`);
    expect(message.message).toBe(`Hi Ada <3 (gold), order A-17 from Shop & Co. Ref ${sent.id}.`);
    const [accepted] = await suite.server.engage.store.readStream(messageStream(sent.id));
    expect(accepted.data).toMatchObject({ template_id: template.id, template_version: 1 });

    // an earlier version, by number
    await ok(key, 'PATCH', `/v1/templates/${template.id}`, { text: 'v2 for {{ contact.first_name }}' });
    const old = await ok(key, 'POST', '/v1/messages/send', { to: 'bob@example.com', channel: 'email', template_id: template.id, template_version: 1, data: { order_id: 'B-1' }, transactional: true }, 202);
    expect((await received(old.id)).text?.trim()).toBe(`Hi Bob (silver), order B-1 from Shop & Co. Ref ${old.id}.`);
    const newest = await ok(key, 'POST', '/v1/messages/send', { to: 'bob@example.com', template_id: template.id, transactional: true }, 202);
    expect((await received(newest.id)).text?.trim()).toBe('v2 for Bob');
  });

  it('refuses a missing template or version, content beside a template, another channel, and missing variables under strict mode', async () => {
    const { key, template } = await setUp();
    const send = (body: Record<string, unknown>) => suite.server.call('POST', '/v1/messages/send', { key, body: { to: 'ada@example.com', transactional: true, ...body } });
    expectRejected(await send({ template_id: 'tpl_01ARZ3NDEKTSV4RRFFQ69G5FAV' }), 'template_id');
    expectRejected(await send({ template_id: template.id, template_version: 9 }), 'template_version');
    expectRejected(await send({ template_id: template.id, message: 'hi' }), 'message');
    expectRejected(await send({ template_id: template.id, channel: 'sms', to: '+14155550123' }), 'channel');
    expectRejected(await send({ template_id: template.id, data: 'not an object' }), 'data');
    await ok(key, 'PATCH', '/v1/account/settings', { template_variables: 'strict' });
    const strict = await send({ template_id: template.id, to: 'nobody@example.com' });
    expect(strict.status).toBe(400);
    expect(strict.body.issues.map((i: { path: string }) => i.path).sort()).toEqual(['contact.custom.tier', 'contact.first_name', 'data.order_id']);
    expect((await send({ template_id: template.id, data: { order_id: 'X' } })).status).toBe(202);
    // nothing was accepted for the refused sends
    const history = await ok(key, 'GET', '/v1/messages/history');
    expect(history.data).toHaveLength(1);
  });
});

describe('a test send of a template', () => {
  it("goes to one of the account's users only, rendered as a preview is, its subject marked [Test]", async () => {
    const { key, template, ada, email } = await setUp();
    const test = await ok(key, 'POST', `/v1/templates/${template.id}/test`, { to: email.toUpperCase(), contact_id: ada.id, data: { order_id: 'T-1' } }, 202);
    expect(test).toMatchObject({ channel: 'email', to: email.toLowerCase(), status: 'queued' });
    const mail = await received(test.id);
    expect(mail.subject).toBe('[Test] Ada <3, order T-1 is on its way');
    expect(mail.text?.trim()).toBe(`Hi Ada <3 (gold), order T-1 from Shop & Co. Ref msg_preview.`);
    // never to a contact, nor to anyone else
    expectRejected(await suite.server.call('POST', `/v1/templates/${template.id}/test`, { key, body: { to: 'ada@example.com' } }), 'to');
    const sms = await ok(key, 'POST', '/v1/templates', { name: 's', channel: 'sms', text: 'Hi' }, 201);
    expectRejected(await suite.server.call('POST', `/v1/templates/${sms.id}/test`, { key, body: { to: email } }), 'to');
    expect((await suite.server.call('POST', '/v1/templates/tpl_01ARZ3NDEKTSV4RRFFQ69G5FAV/test', { key, body: { to: email } })).status).toBe(404);
  });
});

describe('a bulk and a send-by-tag from a template', () => {
  it('renders each item for its own contact and data, and fails only the items that are wrong', async () => {
    const { key, template } = await setUp();
    const bulk = await ok(key, 'POST', '/v1/messages/bulk', {
      messages: [
        { to: 'ada@example.com', template_id: template.id, data: { order_id: '1' }, transactional: true },
        { to: 'bob@example.com', template_id: template.id, data: { order_id: '2' }, transactional: true },
        { to: 'bob@example.com', template_id: 'tpl_01ARZ3NDEKTSV4RRFFQ69G5FAV', transactional: true },
        { to: 'bob@example.com', template_id: template.id, subject: 'mine', transactional: true },
        { to: 'bob@example.com', channel: 'email', message: 'plain', transactional: true },
      ],
    }, 202);
    expect(bulk).toMatchObject({ accepted: 3, failed: 2 });
    expect(bulk.results[2]).toMatchObject({ index: 2, error: 'validation_error' });
    expect(bulk.results[2].message).toMatch(/template_id: no such template/);
    expect(bulk.results[3].message).toMatch(/^subject: /);
    expect((await received(bulk.results[0].id)).text?.trim()).toBe(`Hi Ada <3 (gold), order 1 from Shop & Co. Ref ${bulk.results[0].id}.`);
    expect((await received(bulk.results[1].id)).text?.trim()).toBe(`Hi Bob (silver), order 2 from Shop & Co. Ref ${bulk.results[1].id}.`);
    expect((await received(bulk.results[4].id)).text?.trim()).toBe('plain');

    const byTag = await ok(key, 'POST', '/v1/messages/send-by-tag', { tag: 'vip', channel: 'email', template_id: template.id, data: { order_id: 'T' }, transactional: true }, 202);
    expect(byTag).toMatchObject({ accepted: 2, failed: 0 });
    const texts = await Promise.all(byTag.results.map(async (r: { id: string }) => (await received(r.id)).text?.trim()));
    expect(texts.some((t) => t?.startsWith('Hi Ada <3 (gold), order T'))).toBe(true);
    expect(texts.some((t) => t?.startsWith('Hi Bob (silver), order T'))).toBe(true);
    expectRejected(await suite.server.call('POST', '/v1/messages/send-by-tag', { key, body: { tag: 'vip', channel: 'email', template_id: template.id, message: 'x' } }), 'message');

    // strict: the item without the data fails, naming it; the others go
    await ok(key, 'PATCH', '/v1/account/settings', { template_variables: 'strict' });
    const strict = await ok(key, 'POST', '/v1/messages/bulk', {
      messages: [
        { to: 'ada@example.com', template_id: template.id, transactional: true },
        { to: 'ada@example.com', template_id: template.id, data: { order_id: '3' }, transactional: true },
      ],
    }, 202);
    expect(strict).toMatchObject({ accepted: 1, failed: 1 });
    expect(strict.results[0].message).toMatch(/data\.order_id/);
  });
});
