// Signup forms over HTTP (README "Signup forms"): their definitions and every refusal of a bad one;
// a submission with double opt-in, stored sealed and nowhere in clear until its link is followed,
// then the contact on the form's list with its consent in its history and form.submitted at a
// subscribed endpoint; a form without double opt-in; bots (honeypot, start token, fill time);
// bad values; the allowed origins; and erasure of a pending submission by its address.
import { describe, expect, it } from 'vitest';
import { testServerForSuite } from '../support/harness.ts';
import { addWebhookEndpoint, receiverForSuite } from '../support/receivers.ts';
import { eventually } from '../support/waits.ts';
import { randomBytes } from 'node:crypto';

const server = testServerForSuite({ WEBHOOK_ALLOW_PRIVATE: 'true' });
const hooks = receiverForSuite();
const unique = () => randomBytes(5).toString('hex');

async function listOf(key: string): Promise<string> {
  const res = await server.call('POST', '/v1/lists', { key, body: { name: `News ${unique()}` } });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function formOf(key: string, extra: Record<string, unknown> = {}) {
  const list_id = await listOf(key);
  const res = await server.call('POST', '/v1/forms', {
    key,
    body: { name: 'Weekly news', fields: [{ name: 'email' }, { name: 'first_name', label: 'Your first name' }], list_id, consent_text: 'I agree to receive the weekly news.', ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { form: res.body, list_id };
}

/** A submission as JSON (no start token needed), from no browser. */
const submitJson = (id: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  server.call('POST', `/v1/forms/${id}/submit`, { body, headers });

/** A raw request, for pages (HTML answers are not the API's error bodies). */
async function raw(method: string, path: string, init: { body?: string; type?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    redirect: 'manual',
    headers: { ...(init.type ? { 'content-type': init.type } : {}), ...(init.headers ?? {}) },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The confirmation link the account sent to `to` (the sandbox keeps the message's text). */
async function confirmationLink(key: string, to: string): Promise<string> {
  const message = await eventually('the confirmation message', async () => {
    const res = await server.call('GET', `/v1/messages/history?to=${encodeURIComponent(to)}`, { key });
    return res.body.data[0];
  });
  const link = /https?:\/\/\S+\/f\/confirm\/[A-Za-z0-9._-]+/.exec(message.message)?.[0];
  expect(link, message.message).toBeDefined();
  return new URL(link!).pathname;
}

async function contactByEmail(key: string, email: string) {
  const res = await server.call('GET', `/v1/contacts?email=${encodeURIComponent(email)}`, { key });
  return res.body.data[0] as { id: string; email: string; first_name: string | null } | undefined;
}

async function members(key: string, listId: string): Promise<string[]> {
  const res = await server.call('GET', `/v1/lists/${listId}/contacts`, { key });
  return res.body.data.map((c: { id: string }) => c.id);
}

describe('a signup form', () => {
  it('is created with defaults (double opt-in, email confirmation, labels), read, listed, changed and deleted', async () => {
    const acct = await server.newAccount();
    const { form, list_id } = await formOf(acct.key);
    expect(form).toMatchObject({
      id: expect.stringMatching(/^frm_/), name: 'Weekly news', list_id, double_opt_in: true, min_fill_seconds: 3, redirect_url: null, submissions: 0, confirmed: 0,
      fields: [{ name: 'email', label: 'Email', required: true }, { name: 'first_name', label: 'Your first name', required: false }],
      confirmation: { channel: 'email', subject: 'Please confirm your subscription', message: expect.stringContaining('{{ confirm_url }}') },
      url: `${server.url}/f/${form.id}`,
    });
    expect(form.snippet).toContain(`/f/${form.id}/embed.js`);
    expect((await server.call('GET', `/v1/forms/${form.id}`, { key: acct.key })).body).toEqual(form);
    expect((await server.call('GET', '/v1/forms', { key: acct.key })).body.data.map((f: { id: string }) => f.id)).toEqual([form.id]);

    const patched = await server.call('PATCH', `/v1/forms/${form.id}`, { key: acct.key, body: { name: 'Monthly news', double_opt_in: false, redirect_url: 'https://shop.example/thanks' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Monthly news', double_opt_in: false, redirect_url: 'https://shop.example/thanks', fields: form.fields });
    const history = await server.call('GET', `/v1/forms/${form.id}/history`, { key: acct.key });
    expect(history.body.data.map((e: { type: string }) => e.type)).toEqual(['FormCreated', 'FormUpdated']);

    expect((await server.call('DELETE', `/v1/forms/${form.id}`, { key: acct.key })).body).toEqual({ id: form.id, deleted: true });
    expect((await server.call('GET', `/v1/forms/${form.id}`, { key: acct.key })).status).toBe(404);
    expect((await raw('GET', `/f/${form.id}`)).status).toBe(404);
    expect((await submitJson(form.id, { email: 'a@example.com' })).status).toBe(404);
  });

  it('is invisible to another account', async () => {
    const [a, b] = [await server.newAccount(), await server.newAccount()];
    const { form } = await formOf(a.key);
    for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'x' }], ['DELETE', undefined]] as const) {
      const res = await server.call(method, `/v1/forms/${form.id}`, { key: b.key, ...(body ? { body } : {}) });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'not_found' });
    }
    // nor can it name another account's list
    const res = await server.call('POST', '/v1/forms', { key: b.key, body: { name: 'x', fields: [{ name: 'email' }], list_id: form.list_id, consent_text: 'ok' } });
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([{ path: 'list_id', message: 'no such list' }]);
  });

  it('refuses a bad definition with a 400 naming each problem', async () => {
    const acct = await server.newAccount();
    const list_id = await listOf(acct.key);
    const base = { name: 'x', fields: [{ name: 'email' }], list_id, consent_text: 'ok' };
    const refused = async (body: Record<string, unknown>, paths: string[]) => {
      const res = await server.call('POST', '/v1/forms', { key: acct.key, body });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(paths);
    };
    await refused({ ...base, fields: [{ name: 'first_name' }] }, ['fields', 'confirmation.channel']);
    await refused({ ...base, fields: [{ name: 'email' }, { name: 'email' }] }, ['fields.1.name']);
    await refused({ ...base, fields: [{ name: 'email' }, { name: 'shoe_size' }] }, ['fields.1.name']);
    await refused({ ...base, confirmation: { channel: 'sms' } }, ['confirmation.channel']);
    await refused({ ...base, redirect_url: 'javascript:alert(1)' }, ['redirect_url']);
    await refused({ ...base, colour: 'red' }, ['colour']);
    await refused({ ...base, list_id: 'lst_01JZZZZZZZZZZZZZZZZZZZZZZZ' }, ['list_id']);
    await refused({ ...base, min_fill_seconds: -1 }, ['min_fill_seconds']);
  });
});

describe('double opt-in', () => {
  it('keeps a submission sealed until its link is followed; then the contact is on the list with its consent, and form.submitted reached the endpoint', async () => {
    const acct = await server.newAccount();
    await addWebhookEndpoint(server, acct.key, hooks.url, ['form.submitted', 'contact.created']);
    const { form, list_id } = await formOf(acct.key);
    const email = `ann-${unique()}@example.com`;

    const submitted = await submitJson(form.id, { email: email.toUpperCase(), first_name: 'Ann' }, { 'user-agent': 'FormTest/1.0' });
    expect(submitted.status).toBe(202);
    expect(submitted.body).toEqual({ status: 'pending_confirmation' });
    // nothing but the sealed submission: no contact, and the address in no event in clear
    expect(await contactByEmail(acct.key, email)).toBeUndefined();
    const { rows } = await server.engage.pool.query<{ type: string; data: string }>(
      `SELECT type, data::text AS data FROM es_events WHERE data::text LIKE '%' || $1 || '%'`,
      [form.id],
    );
    expect(rows.map((r) => r.type)).toContain('FormSubmitted');
    for (const r of rows) expect(r.data).not.toContain(email);

    const hook = await eventually('form.submitted', async () => hooks.hits.find((h) => h.json?.type === 'form.submitted' && h.json.data.form_id === form.id));
    expect(hook.json.data).toEqual({ form_id: form.id, submission_id: expect.stringMatching(/^fsub_/), double_opt_in: true, status: 'pending_confirmation', submitted_at: expect.any(String) });
    expect(hook.body).not.toContain(email);

    const path = await confirmationLink(acct.key, email);
    // a GET shows a button and confirms nothing (mail scanners fetch links)
    const page = await raw('GET', path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Confirm your subscription');
    expect(await contactByEmail(acct.key, email)).toBeUndefined();

    const done = await raw('POST', path, { body: 'confirm=yes', type: 'application/x-www-form-urlencoded' });
    expect(done.status).toBe(200);
    expect(done.text).toContain('You are subscribed');
    const contact = await contactByEmail(acct.key, email);
    expect(contact).toMatchObject({ email, first_name: 'Ann' });
    expect(await members(acct.key, list_id)).toEqual([contact!.id]);
    const history = await server.call('GET', `/v1/contacts/${contact!.id}/history`, { key: acct.key });
    const consent = history.body.data.find((e: { type: string }) => e.type === 'ContactConsentRecorded');
    expect(consent.changes).toMatchObject({
      form_id: form.id, list_id, method: 'double_opt_in', text: 'I agree to receive the weekly news.', ip: expect.stringMatching(/127\.0\.0\.1|::1/), user_agent: 'FormTest/1.0',
      submitted_at: expect.any(String), at: expect.any(String),
    });
    await eventually('contact.created', async () => hooks.hits.find((h) => h.json?.type === 'contact.created' && h.json.data.id === contact!.id));

    // the link followed again: the same page, nothing more
    expect((await raw('POST', path, { body: 'confirm=yes', type: 'application/x-www-form-urlencoded' })).status).toBe(200);
    expect((await server.call('GET', `/v1/contacts/${contact!.id}/history`, { key: acct.key })).body.data.filter((e: { type: string }) => e.type === 'ContactConsentRecorded')).toHaveLength(1);
    await server.caughtUp(['forms']);
    expect((await server.call('GET', `/v1/forms/${form.id}`, { key: acct.key })).body).toMatchObject({ submissions: 1, confirmed: 1 });
  });

  it('updates a contact that exists rather than making another, and sends on to redirect_url', async () => {
    const acct = await server.newAccount();
    const email = `bob-${unique()}@example.com`;
    const existing = await server.call('POST', '/v1/contacts', { key: acct.key, body: { email, first_name: 'Robert' } });
    const { form, list_id } = await formOf(acct.key, { redirect_url: 'https://shop.example/welcome' });
    expect((await submitJson(form.id, { email, first_name: 'Bob' })).status).toBe(202);
    const done = await raw('POST', await confirmationLink(acct.key, email), { body: 'confirm=yes', type: 'application/x-www-form-urlencoded' });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('https://shop.example/welcome');
    expect(await contactByEmail(acct.key, email)).toMatchObject({ id: existing.body.id, first_name: 'Bob' });
    expect(await members(acct.key, list_id)).toEqual([existing.body.id]);
  });

  it('a confirmation undoes an earlier unsubscribe of the address, never a manual suppression', async () => {
    const acct = await server.newAccount();
    const { form } = await formOf(acct.key);
    const suppressions = async (address: string) =>
      (await server.call('GET', `/v1/account/unsubscribes/api/list?address=${encodeURIComponent(address)}`, { key: acct.key })).body.data.map((r: { reason: string }) => r.reason);
    const [back, blocked] = [`back-${unique()}@example.com`, `blocked-${unique()}@example.com`];
    expect((await server.call('POST', '/v1/account/unsubscribes', { key: acct.key, body: { email: back, reason: 'unsubscribe' } })).status).toBe(201);
    expect((await server.call('POST', '/v1/account/unsubscribes', { key: acct.key, body: { email: blocked, reason: 'manual' } })).status).toBe(201);
    expect((await submitJson(form.id, { email: back })).status).toBe(202);
    expect((await raw('POST', await confirmationLink(acct.key, back), { body: 'confirm=yes', type: 'application/x-www-form-urlencoded' })).status).toBe(200);
    expect(await suppressions(back)).toEqual([]);
    // a manual suppression blocks even the confirmation message; the submission stays pending, suppressed
    expect((await submitJson(form.id, { email: blocked })).status).toBe(202);
    expect(await suppressions(blocked)).toEqual(['manual']);
  });

  it('an erased address takes its pending submission with it: the link then confirms nothing', async () => {
    const acct = await server.newAccount();
    const { form } = await formOf(acct.key);
    const email = `cy-${unique()}@example.com`;
    expect((await submitJson(form.id, { email })).status).toBe(202);
    const path = await confirmationLink(acct.key, email);
    const erased = await server.call('POST', '/v1/account/erasures', { key: acct.key, body: { email } });
    expect(erased.status).toBe(200);
    const res = await raw('POST', path, { body: 'confirm=yes', type: 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(410);
    expect(res.text).toContain('expired');
    expect(await contactByEmail(acct.key, email)).toBeUndefined();
  });

  it('a link that is not genuine is a 404 page', async () => {
    const res = await raw('GET', '/f/confirm/c1.fsub_01JZZZZZZZZZZZZZZZZZZZZZZZ.abc.AAAA');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('text/html');
  });
});

describe('without double opt-in', () => {
  it('puts the contact on the list at once; a browser form post is sent on to redirect_url', async () => {
    const acct = await server.newAccount();
    const { form, list_id } = await formOf(acct.key, { double_opt_in: false });
    const email = `dee-${unique()}@example.com`;
    const res = await submitJson(form.id, { email });
    expect(res.body).toEqual({ status: 'subscribed' });
    const contact = await contactByEmail(acct.key, email);
    expect(await members(acct.key, list_id)).toEqual([contact!.id]);
    const history = await server.call('GET', `/v1/contacts/${contact!.id}/history`, { key: acct.key });
    expect(history.body.data.find((e: { type: string }) => e.type === 'ContactConsentRecorded').changes.method).toBe('single_opt_in');

    // a browser's post of the hosted form goes on to redirect_url once subscribed
    const redirecting = await formOf(acct.key, { double_opt_in: false, redirect_url: 'https://shop.example/welcome', min_fill_seconds: 0 });
    const posted = await raw('POST', `/v1/forms/${redirecting.form.id}/submit`, {
      body: new URLSearchParams({ email: `eve-${unique()}@example.com`, _hp: '', _started: await startToken(redirecting.form.id) }).toString(),
      type: 'application/x-www-form-urlencoded',
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe('https://shop.example/welcome');
    expect(await members(acct.key, redirecting.list_id)).toHaveLength(1);
  });
});

/** The start token the hosted page carries (a person's browser loads it first). */
async function startToken(formId: string): Promise<string> {
  const page = await raw('GET', `/f/${formId}`);
  expect(page.status).toBe(200);
  return /name="_started" value="([^"]+)"/.exec(page.text)![1];
}

describe('bots', () => {
  it('a filled honeypot, a missing or forged start token, or a form filled faster than min_fill_seconds: answered like a person, nothing stored', async () => {
    const acct = await server.newAccount();
    const { form } = await formOf(acct.key, { min_fill_seconds: 60 });
    const post = (fields: Record<string, string>) => raw('POST', `/v1/forms/${form.id}/submit`, { body: new URLSearchParams(fields).toString(), type: 'application/x-www-form-urlencoded' });
    const token = await startToken(form.id);
    for (const fields of [
      { email: `b1-${unique()}@example.com`, _started: token, _hp: 'http://spam.example' },
      { email: `b2-${unique()}@example.com` },
      { email: `b3-${unique()}@example.com`, _started: `${token.slice(0, -2)}AA` },
      // shown just now, where a person needs a minute
      { email: `b4-${unique()}@example.com`, _started: token },
    ] as Record<string, string>[]) {
      const res = await post(fields);
      expect(res.status, fields.email).toBe(202);
      expect(res.text).toContain('Almost done');
    }
    const json = await submitJson(form.id, { email: `b5-${unique()}@example.com`, _hp: 'x' });
    expect(json.body).toEqual({ status: 'pending_confirmation' });
    await server.caughtUp(['forms']);
    expect((await server.call('GET', `/v1/forms/${form.id}`, { key: acct.key })).body.submissions).toBe(0);
  });

  it('a person who took long enough is let through', async () => {
    const acct = await server.newAccount();
    const { form } = await formOf(acct.key, { min_fill_seconds: 0 });
    const token = await startToken(form.id);
    const email = `p-${unique()}@example.com`;
    const res = await raw('POST', `/v1/forms/${form.id}/submit`, { body: new URLSearchParams({ email, first_name: 'Pat', _hp: '', _started: token }).toString(), type: 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(202);
    expect(res.text).toContain('Almost done');
    await confirmationLink(acct.key, email);
  });
});

describe('bad submissions', () => {
  it('answer 400 naming each field (JSON), a page listing them (a browser form), 415 for another body', async () => {
    const acct = await server.newAccount();
    const { form } = await formOf(acct.key, { min_fill_seconds: 0 });
    const bad = await submitJson(form.id, { first_name: 'x'.repeat(201), colour: 'red' });
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((i: { path: string }) => i.path).sort()).toEqual(['colour', 'email', 'first_name']);
    expect((await submitJson(form.id, { email: 'not an address' })).body.issues).toEqual([{ path: 'email', message: 'must be a valid email address' }]);
    const notJson = await server.call('POST', `/v1/forms/${form.id}/submit`, { raw: '{"email":', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBe(400);
    const page = await raw('POST', `/v1/forms/${form.id}/submit`, { body: `email=nope&_started=${encodeURIComponent(await startToken(form.id))}`, type: 'application/x-www-form-urlencoded' });
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('must be a valid email address');
    const xml = await server.call('POST', `/v1/forms/${form.id}/submit`, { raw: '<email/>', headers: { 'content-type': 'application/xml' } });
    expect(xml.status).toBe(415);
  });
});

describe('origins', () => {
  it("follow the account's tracking origins: another origin is refused with no CORS header; an allowed one, and this service's own pages, are let in", async () => {
    const acct = await server.newAccount();
    expect((await server.call('PUT', '/v1/account/tracking-origins', { key: acct.key, body: { origins: ['https://shop.example'] } })).status).toBe(200);
    const { form } = await formOf(acct.key);
    const refused = await submitJson(form.id, { email: `o-${unique()}@example.com` }, { origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    const allowed = await submitJson(form.id, { email: `o-${unique()}@example.com` }, { origin: 'https://shop.example' });
    expect(allowed.status).toBe(202);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    const own = await submitJson(form.id, { email: `o-${unique()}@example.com` }, { origin: new URL(server.url).origin });
    expect(own.status).toBe(202);
    const preflight = await raw('OPTIONS', `/v1/forms/${form.id}/submit`, { headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    const badPreflight = await raw('OPTIONS', `/v1/forms/${form.id}/submit`, { headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(badPreflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});

