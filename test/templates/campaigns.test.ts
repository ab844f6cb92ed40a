// A campaign from a template (README "Templates"): every member of a segment receives the message
// rendered from its own contact (its name, its custom field) and the campaign's data, as a real
// SMTP server receives it; under strict variables a member whose contact lacks a variable gets its
// message failed with reason template_error, naming it, while the others are sent; a campaign names
// only a template of its own account and channel, and not content beside it.
import { describe, expect, it } from 'vitest';
import { expectRejected } from '../support/http.ts';
import { eventually } from '../support/waits.ts';
import { mailSuite } from './mail-suite.ts';

const suite = mailSuite();
const { ok } = suite;

const NEWS = {
  name: 'Monthly news',
  channel: 'email',
  subject: 'News for {{ contact.first_name }}',
  text: 'Dear {{ contact.first_name }}, your plan is {{ contact.custom.plan | upcase }}. {{ data.headline }}',
  html: '<h1>{{ data.headline }}</h1><p>Dear {{ contact.first_name }} ({{ contact.custom.plan }})</p>',
};

/** An account with a custom field, a segment of three members (one without a plan) and the template. */
async function setUp() {
  const { key } = await suite.server.newAccount('Newsroom');
  await ok(key, 'POST', '/v1/contacts/fields', { key: 'plan', label: 'Plan', type: 'text' }, 201);
  const members = [
    await ok(key, 'POST', '/v1/contacts', { email: 'ada@example.com', first_name: 'Ada', custom_fields: { plan: 'pro' }, tags: ['news'] }, 201),
    await ok(key, 'POST', '/v1/contacts', { email: 'bob@example.com', first_name: 'Bob', custom_fields: { plan: 'team' }, tags: ['news'] }, 201),
    await ok(key, 'POST', '/v1/contacts', { email: 'cy@example.com', first_name: 'Cy', tags: ['news'] }, 201),
  ];
  await ok(key, 'POST', '/v1/contacts', { email: 'dan@example.com', first_name: 'Dan', custom_fields: { plan: 'pro' } }, 201);
  const segment = await ok(key, 'POST', '/v1/segments', { name: 'News readers', rules: { match: 'all', rules: [{ field: 'tag', operator: 'has', value: 'news' }] } }, 201);
  const template = await ok(key, 'POST', '/v1/templates', NEWS, 201);
  return { key, members, segment, template };
}

/** The campaign once its send has ended, and its messages by recipient. */
async function sent(key: string, id: string) {
  const campaign = await eventually('the campaign to be sent', async () => {
    const c = await ok(key, 'GET', `/v1/campaigns/${id}`);
    return c.status === 'sent' ? c : undefined;
  }, 60_000);
  const messages = await eventually('every message of the campaign to settle', async () => {
    const page = await ok(key, 'GET', '/v1/messages/history?limit=50');
    const mine = page.data.filter((m: { status: string }) => ['sent', 'delivered', 'failed'].includes(m.status));
    return mine.length === campaign.accepted ? mine : undefined;
  }, 60_000);
  return { campaign, byRecipient: new Map<string, any>(messages.map((m: { to: string }) => [m.to, m])) };
}

describe('a campaign from a template', () => {
  it("renders each segment member's own name and custom field, and the campaign's data", async () => {
    const { key, segment, template } = await setUp();
    const created = await ok(key, 'POST', '/v1/campaigns', {
      name: 'November', audience: { segment_id: segment.id }, channel: 'email', template_id: template.id, data: { headline: 'Winter is <here>' },
    }, 201);
    expect(created).toMatchObject({ template_id: template.id, data: { headline: 'Winter is <here>' } });
    expect(created.message).toBeUndefined();
    const { campaign, byRecipient } = await sent(key, created.id);
    expect(campaign).toMatchObject({ accepted: 3, skipped: 0 });
    const ada = (await eventually('ada’s mail', async () => suite.smtp.find(byRecipient.get('ada@example.com').id)?.mail, 60_000));
    expect(ada.subject).toBe('News for Ada');
    expect(ada.text).toContain('Dear Ada, your plan is PRO. Winter is <here>');
    expect(ada.html).toContain('<h1>Winter is &lt;here&gt;</h1><p>Dear Ada (pro)</p>');
    const bob = (await eventually('bob’s mail', async () => suite.smtp.find(byRecipient.get('bob@example.com').id)?.mail, 60_000));
    expect(bob.subject).toBe('News for Bob');
    expect(bob.text).toContain('Dear Bob, your plan is TEAM.');
    // lenient: the missing plan renders empty
    const cy = (await eventually('cy’s mail', async () => suite.smtp.find(byRecipient.get('cy@example.com').id)?.mail, 60_000));
    expect(cy.text).toContain('Dear Cy, your plan is . Winter');
    expect(byRecipient.has('dan@example.com')).toBe(false);
  });

  it('under strict variables fails the message of a member whose contact lacks a variable, with reason template_error', async () => {
    const { key, segment, template } = await setUp();
    await ok(key, 'PATCH', '/v1/account/settings', { template_variables: 'strict' });
    const created = await ok(key, 'POST', '/v1/campaigns', {
      name: 'Strict', audience: { segment_id: segment.id }, channel: 'email', template_id: template.id, data: { headline: 'Hello' },
    }, 201);
    const { campaign, byRecipient } = await sent(key, created.id);
    expect(campaign).toMatchObject({ accepted: 3 });
    const cy = byRecipient.get('cy@example.com');
    expect(cy.status).toBe('failed');
    expect(cy.reason).toBe('template_error: contact.custom.plan: is read by the template and has no value');
    const timeline = await ok(key, 'GET', `/v1/messages/${cy.id}/timeline`);
    const failed = timeline.events.find((e: { type: string }) => e.type === 'MessageFailed');
    expect(failed.reason).toMatch(/^template_error: contact\.custom\.plan: is read by the template and has no value/);
    expect(suite.smtp.find(cy.id)).toBeUndefined();
    for (const to of ['ada@example.com', 'bob@example.com']) expect(['sent', 'delivered']).toContain(byRecipient.get(to).status);
  });

  it('names only a template of its own account and channel, and no content beside it', async () => {
    const { key, segment, template } = await setUp();
    const other = await suite.server.newAccount();
    const foreign = await ok(other.key, 'POST', '/v1/templates', { name: 'x', channel: 'email', text: 'x' }, 201);
    const sms = await ok(key, 'POST', '/v1/templates', { name: 's', channel: 'sms', text: 'Hi {{ contact.first_name }}' }, 201);
    const create = (body: Record<string, unknown>) => suite.server.call('POST', '/v1/campaigns', { key, body: { name: 'c', audience: { segment_id: segment.id }, channel: 'email', ...body } });
    expectRejected(await create({ template_id: foreign.id }), 'template_id');
    expectRejected(await create({ template_id: template.id, template_version: 2 }), 'template_version');
    expectRejected(await create({ template_id: sms.id }), 'channel');
    expectRejected(await create({ template_id: template.id, message: 'also this' }), 'message');
    expectRejected(await create({ message: 'plain', data: { a: 1 } }), 'template_id');
    expect((await ok(key, 'GET', '/v1/campaigns')).data).toEqual([]);
  });
});
