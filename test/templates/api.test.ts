// Templates over HTTP (README "Templates"): create, read, list, a new version on each change, the
// versions, delete, the history; Liquid that does not parse refused at save with its line and
// column; a preview rendering a contact's fields, custom fields and a send's data (HTML escaped,
// text not); strict variables naming every missing one; the sandbox (no file read, bounded loops);
// another account's templates invisible; and a rebuild of the read model.
import { describe, expect, it } from 'vitest';
import { templatesProjection } from '../../projections/templates.ts';
import { enableAiAddon, readyAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { expectRejected } from '../support/http.ts';
import { rebuildAndWait } from '../support/rebuild.ts';

const server = testServerForSuite();
const TEMPLATE_ID_RE = /^tpl_[0-9A-HJKMNP-TV-Z]{26}$/;
const MISSING = 'tpl_01ARZ3NDEKTSV4RRFFQ69G5FAV';

async function ok(key: string, method: string, path: string, body?: unknown, status = 200) {
  const res = await server.call(method, path, { key, body });
  expect(res.status, `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

const WELCOME = {
  name: 'Welcome',
  channel: 'email',
  subject: 'Welcome, {{ contact.first_name | default: "friend" }}',
  text: 'Hi {{ contact.first_name }}, your plan is {{ contact.custom.plan }}. Order {{ data.order_id }}. Leave: {{ unsubscribe_url }}',
  html: '<p>Hi {{ contact.first_name }}</p><p>{{ data.note }}</p>{% for item in data.items %}<li>{{ item.name }}</li>{% endfor %}',
};

describe('saving templates', () => {
  it('creates version 1, reads it back, and lists it (by channel too)', async () => {
    const { key } = await readyAccount(server);
    const created = await ok(key, 'POST', '/v1/templates', WELCOME, 201);
    expect(created).toMatchObject({ ...WELCOME, version: 1 });
    expect(created.id).toMatch(TEMPLATE_ID_RE);
    expect(created.updated_at).toBe(created.created_at);
    expect(await ok(key, 'GET', `/v1/templates/${created.id}`)).toEqual(created);
    const sms = await ok(key, 'POST', '/v1/templates', { name: 'Code', channel: 'sms', text: 'Your code is {{ data.code }}' }, 201);
    expect(sms).toMatchObject({ subject: null, html: null, version: 1 });
    expect((await ok(key, 'GET', '/v1/templates')).data.map((t: { id: string }) => t.id)).toEqual([sms.id, created.id]);
    expect((await ok(key, 'GET', '/v1/templates?channel=email')).data.map((t: { id: string }) => t.id)).toEqual([created.id]);
  });

  it('refuses Liquid that does not parse, naming the part, the line and the column, and stores nothing', async () => {
    const { key } = await readyAccount(server);
    const res = await server.call('POST', '/v1/templates', { key, body: { ...WELCOME, text: 'Hi\n{% if contact.first_name %}there' } });
    expectRejected(res, 'text');
    const issue = res.body.issues.find((i: { path: string }) => i.path === 'text');
    expect(issue.message).toMatch(/line 2, column 1/);
    expect(issue.message).toMatch(/not closed/);
    const filter = await server.call('POST', '/v1/templates', { key, body: { ...WELCOME, html: '<p>{{ contact.first_name | shout }}</p>' } });
    expectRejected(filter, 'html');
    expect(filter.body.issues[0].message).toMatch(/line 1, column 4: undefined filter: shout/);
    expect((await ok(key, 'GET', '/v1/templates')).data).toEqual([]);
  });

  it('refuses a subject or HTML on a channel other than email', async () => {
    const { key } = await readyAccount(server);
    const res = await server.call('POST', '/v1/templates', { key, body: { name: 'x', channel: 'sms', subject: 'Hi', text: 'Hello', html: '<p>x</p>' } });
    expectRejected(res, 'subject');
    expectRejected(res, 'html');
  });

  it('makes a new version of each change, keeps every version, and none for a change to nothing', async () => {
    const { key } = await readyAccount(server);
    const t = await ok(key, 'POST', '/v1/templates', WELCOME, 201);
    const v2 = await ok(key, 'PATCH', `/v1/templates/${t.id}`, { text: 'Hello {{ contact.first_name }}' });
    expect(v2).toMatchObject({ ...WELCOME, text: 'Hello {{ contact.first_name }}', version: 2, created_at: t.created_at });
    const v3 = await ok(key, 'PATCH', `/v1/templates/${t.id}`, { name: 'Welcome (new)', html: null });
    expect(v3).toMatchObject({ name: 'Welcome (new)', text: 'Hello {{ contact.first_name }}', html: null, version: 3 });
    expect(await ok(key, 'PATCH', `/v1/templates/${t.id}`, { name: 'Welcome (new)' })).toMatchObject({ version: 3 });
    // a broken change is refused and makes no version
    expectRejected(await server.call('PATCH', `/v1/templates/${t.id}`, { key, body: { subject: '{{ contact.first_name' } }), 'subject');
    expect((await ok(key, 'GET', `/v1/templates/${t.id}`)).version).toBe(3);

    const first = await ok(key, 'GET', `/v1/templates/${t.id}/versions?limit=2`);
    expect(first.data.map((v: { version: number }) => v.version)).toEqual([3, 2]);
    const rest = await ok(key, 'GET', `/v1/templates/${t.id}/versions?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`);
    expect(rest.data.map((v: { version: number }) => v.version)).toEqual([1]);
    expect(rest.next_cursor).toBeNull();
    expect(rest.data[0]).toMatchObject({ name: 'Welcome', subject: WELCOME.subject, text: WELCOME.text, html: WELCOME.html });
    expect(await ok(key, 'GET', `/v1/templates/${t.id}/versions/2`)).toMatchObject({ version: 2, text: 'Hello {{ contact.first_name }}', html: WELCOME.html });
    expect((await server.call('GET', `/v1/templates/${t.id}/versions/4`, { key })).status).toBe(404);

    const history = await ok(key, 'GET', `/v1/templates/${t.id}/history`);
    expect(history.data.map((e: { type: string }) => e.type)).toEqual(['TemplateCreated', 'TemplateVersionCreated', 'TemplateVersionCreated']);
  });

  it('deletes a template: it, its versions and its preview are gone', async () => {
    const { key } = await readyAccount(server);
    const t = await ok(key, 'POST', '/v1/templates', WELCOME, 201);
    expect(await ok(key, 'DELETE', `/v1/templates/${t.id}`)).toEqual({ id: t.id, deleted: true });
    for (const [method, path] of [['GET', ''], ['GET', '/versions'], ['GET', '/versions/1'], ['PATCH', ''], ['DELETE', ''], ['POST', '/preview']] as const) {
      const res = await server.call(method, `/v1/templates/${t.id}${path}`, { key, ...(method === 'GET' || method === 'DELETE' ? {} : { body: method === 'PATCH' ? { name: 'x' } : {} }) });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
  });

  it("keeps another account's templates invisible", async () => {
    const a = await readyAccount(server);
    const b = await readyAccount(server);
    const t = await ok(a.key, 'POST', '/v1/templates', WELCOME, 201);
    expect((await ok(b.key, 'GET', '/v1/templates')).data).toEqual([]);
    for (const [method, path, body] of [
      ['GET', '', undefined], ['GET', '/versions', undefined], ['GET', '/history', undefined], ['PATCH', '', { name: 'mine' }], ['DELETE', '', undefined], ['POST', '/preview', {}],
    ] as const) {
      const res = await server.call(method, `/v1/templates/${t.id}${path}`, { key: b.key, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
    expect((await server.call('GET', `/v1/templates/${MISSING}`, { key: b.key })).status).toBe(404);
    expect(await ok(a.key, 'GET', `/v1/templates/${t.id}`)).toMatchObject({ name: 'Welcome', version: 1 });
  });
});

describe('previewing a template', () => {
  it("renders a contact's fields and custom fields and the send's data: HTML escaped, text as it is", async () => {
    const { key } = await readyAccount(server);
    await ok(key, 'POST', '/v1/contacts/fields', { key: 'plan', label: 'Plan', type: 'text' }, 201);
    const contact = await ok(key, 'POST', '/v1/contacts', { email: 'ada@example.com', first_name: 'Ada & <Co>', custom_fields: { plan: 'pro' } }, 201);
    const t = await ok(key, 'POST', '/v1/templates', WELCOME, 201);
    const data = { order_id: 'A-17', note: '<b>bold</b>', items: [{ name: 'Tea' }, { name: 'Cake' }] };
    expect(await ok(key, 'POST', `/v1/templates/${t.id}/preview`, { contact_id: contact.id, data })).toEqual({
      subject: 'Welcome, Ada & <Co>',
      text: 'Hi Ada & <Co>, your plan is pro. Order A-17. Leave: {{unsubscribe_url}}',
      html: '<p>Hi Ada &amp; &lt;Co&gt;</p><p>&lt;b&gt;bold&lt;/b&gt;</p><li>Tea</li><li>Cake</li>',
    });
    // without a contact: contact.* renders empty (lenient, the default), and a default applies
    expect(await ok(key, 'POST', `/v1/templates/${t.id}/preview`, { data: { order_id: 'B-2' } })).toMatchObject({
      subject: 'Welcome, friend',
      text: 'Hi , your plan is . Order B-2. Leave: {{unsubscribe_url}}',
    });
    // an earlier version renders as it was
    await ok(key, 'PATCH', `/v1/templates/${t.id}`, { text: 'v2 {{ data.order_id }}' });
    expect((await ok(key, 'POST', `/v1/templates/${t.id}/preview`, { data: { order_id: 'C' } })).text).toBe('v2 C');
    expect((await ok(key, 'POST', `/v1/templates/${t.id}/preview`, { data: { order_id: 'C' }, version: 1 })).text).toMatch(/^Hi , your plan is \. Order C\./);
    expectRejected(await server.call('POST', `/v1/templates/${t.id}/preview`, { key, body: { contact_id: 'ct_01ARZ3NDEKTSV4RRFFQ69G5FAV' } }), 'contact_id');
  });

  it('under strict variables refuses a render that leaves variables without a value, naming every one', async () => {
    const { key } = await readyAccount(server);
    expect(await ok(key, 'PATCH', '/v1/account/settings', { template_variables: 'strict' })).toMatchObject({ template_variables: 'strict' });
    expect(await ok(key, 'GET', '/v1/account/settings')).toMatchObject({ template_variables: 'strict' });
    const contact = await ok(key, 'POST', '/v1/contacts', { email: 'grace@example.com', first_name: 'Grace' }, 201);
    const t = await ok(key, 'POST', '/v1/templates', WELCOME, 201);
    const res = await server.call('POST', `/v1/templates/${t.id}/preview`, { key, body: { contact_id: contact.id, data: { order_id: 'A-1' } } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_error');
    expect(res.body.issues.map((i: { path: string }) => i.path).sort()).toEqual(['contact.custom.plan', 'data.items', 'data.note']);
    for (const name of ['contact.custom.plan', 'data.note', 'data.items']) expect(res.body.message).toContain(name);
    // given everything, it renders; a null field is there (empty), not missing
    const full = await ok(key, 'POST', `/v1/templates/${t.id}/preview`, { contact_id: contact.id, data: { order_id: 'A-1', note: null, items: [] } }, 400);
    expect(full.issues.map((i: { path: string }) => i.path)).toEqual(['contact.custom.plan']);
    await ok(key, 'PATCH', '/v1/account/settings', { template_variables: 'lenient' });
    expect((await ok(key, 'POST', `/v1/templates/${t.id}/preview`, { contact_id: contact.id, data: { order_id: 'A-1' } })).text).toMatch(/^Hi Grace, your plan is \. Order A-1\./);
  });

  it('reads no file and stops a render that runs away', async () => {
    const { key } = await readyAccount(server);
    for (const tag of ['{% include "/etc/passwd" %}', "{% render 'x' %}", '{% layout "default" %}']) {
      const res = await server.call('POST', '/v1/templates', { key, body: { name: 'i', channel: 'sms', text: `a\n ${tag}` } });
      expectRejected(res, 'text');
      expect(res.body.issues[0].message).toMatch(/line 2, column 2: .* is not available: a template has no partials or layouts/);
    }
    const loop = await ok(key, 'POST', '/v1/templates', { name: 'l', channel: 'sms', text: '{% for i in (1..100000000) %}{{ i }}{% endfor %}' }, 201);
    expectRejected(await server.call('POST', `/v1/templates/${loop.id}/preview`, { key, body: {} }), 'template.text');
    // only an object's own properties: no prototype to walk
    const proto = await ok(key, 'POST', '/v1/templates', { name: 'p', channel: 'sms', text: '[{{ data.constructor.name }}{{ data.__proto__ }}]' }, 201);
    expect((await ok(key, 'POST', `/v1/templates/${proto.id}/preview`, { data: {} })).text).toBe('[]');
  });
});

describe('an AI draft saved as a template', () => {
  it('needs the AI writer; saves the draft as version 1 of an email template, its words kept word for word', async () => {
    const account = await readyAccount(server);
    const brief = { name: 'Spring', brief: 'Our {{ spring }} sale {% starts %} Monday', call_to_action: 'Shop now' };
    const refused = await server.call('POST', '/v1/templates/draft', { key: account.key, body: brief });
    expect(refused.status).toBe(403);
    await enableAiAddon(server, account, 'writer');
    const drafted = await ok(account.key, 'POST', '/v1/templates/draft', brief, 201);
    // no provider configured: the built-in writer's draft
    expect(drafted).toMatchObject({ degraded: true, degraded_reason: 'not_configured', template: { name: 'Spring', channel: 'email', version: 1 } });
    expect(drafted.template.id).toMatch(TEMPLATE_ID_RE);
    expect(await ok(account.key, 'GET', `/v1/templates/${drafted.template.id}`)).toEqual(drafted.template);
    const shown = await ok(account.key, 'POST', `/v1/templates/${drafted.template.id}/preview`, {});
    expect(shown.text).toContain('Our {{ spring }} sale {% starts %} Monday.');
    expect(shown.text).toContain('Shop now.');
    expect(shown.text).toMatch(/Unsubscribe: \{\{unsubscribe_url\}\}$/);
    expect(shown.html).toContain('Our {{ spring }} sale {% starts %} Monday.');
    expect(shown.html).toContain('href="{{unsubscribe_url}}"');
    expect(shown.subject.length).toBeGreaterThan(0);
  });
});

describe('the templates read model', () => {
  it('is rebuilt from the log to the same rows', async () => {
    const { key } = await readyAccount(server);
    const t = await ok(key, 'POST', '/v1/templates', WELCOME, 201);
    await ok(key, 'PATCH', `/v1/templates/${t.id}`, { text: 'second' });
    const gone = await ok(key, 'POST', '/v1/templates', { name: 'gone', channel: 'sms', text: 'x' }, 201);
    await ok(key, 'DELETE', `/v1/templates/${gone.id}`);
    const before = { list: await ok(key, 'GET', '/v1/templates'), versions: await ok(key, 'GET', `/v1/templates/${t.id}/versions`) };
    await rebuildAndWait(server, templatesProjection);
    expect({ list: await ok(key, 'GET', '/v1/templates'), versions: await ok(key, 'GET', `/v1/templates/${t.id}/versions`) }).toEqual(before);
    expect(before.list.data.map((r: { id: string }) => r.id)).toEqual([t.id]);
    expect(before.versions.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
  });
});
