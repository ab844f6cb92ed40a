// Right to erasure in an immutable log (issue 10): personal data in events is sealed under per-subject
// keys; erasing a contact or an address destroys its keys, so nothing — read models, timelines,
// `engage streams show`, webhook deliveries, a rebuild of every read model, any table of the
// database or the event log itself — shows the erased values again, while the log stays complete.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { contactStream } from '../../commands/contact.ts';
import { messageStream } from '../../commands/message.ts';
import { ALL_PROJECTIONS } from '../../projections/index.ts';
import { requestRebuild } from '../../src/read-models/generations.ts';
import { readyAccount, type TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { everyTableAsText, foundIn } from '../support/tables.ts';
import { messagesById, timeline } from '../support/messages.ts';
import { runEngage } from '../support/processes.ts';
import { addWebhookEndpoint, receiverForSuite } from '../support/receivers.ts';
import { eventually } from '../support/waits.ts';

const server = testServerForSuite({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '100ms,200ms' });
const receiver = receiverForSuite();

/** Values unique to this run, so finding one anywhere can only mean it was not erased. */
function person() {
  const tag = randomBytes(5).toString('hex');
  const n = parseInt(tag.slice(0, 8), 16);
  // exchange 4NN with N in 2-9 (never an N11 code), then any four digits: a valid US number
  const digits = `4${2 + (n % 8)}${2 + (Math.floor(n / 8) % 8)}${String(Math.floor(n / 64) % 10_000).padStart(4, '0')}`;
  return {
    email: `ada.${tag}@example.com`,
    newEmail: `ada.new.${tag}@example.com`,
    phone: `+1415${digits}`,
    firstName: `Ada${tag}`,
    lastName: `Lovelace${tag}`,
    plan: `plan-${tag}`,
    body: `your code is ${tag}`,
    subject: `Subject ${tag}`,
    deviceToken: `fcm:device-${tag}-${randomBytes(12).toString('hex')}`,
  };
}
type Person = ReturnType<typeof person>;

const valuesOf = (p: Person) => [p.email, p.newEmail, p.phone, p.firstName, p.lastName, p.plan, p.body, p.subject, p.email.toUpperCase(), p.deviceToken];

async function rebuildEverything(): Promise<void> {
  const rebuildable = ALL_PROJECTIONS.filter((p) => p.rebuildable !== false);
  const generations = new Map<string, number>();
  for (const p of rebuildable) generations.set(p.name, await requestRebuild(server.engage.pool, p));
  await eventually(
    'every read model rebuilt and swapped in',
    async () => {
      const { rows } = await server.engage.pool.query<{ name: string; generation: number }>('SELECT name, generation FROM projection_state WHERE active');
      const active = new Map(rows.map((r) => [r.name, r.generation]));
      return [...generations].every(([name, g]) => active.get(name) === g) ? true : undefined;
    },
    120_000,
    100,
  );
}

async function setUpPerson(acct: TestAccount, p: Person) {
  const call = (method: string, path: string, body?: unknown) => server.call(method, path, { key: acct.key, body });
  expect((await call('POST', '/v1/contacts/fields', { key: 'plan', label: 'Plan', type: 'text' })).status).toBeLessThan(300);
  const created = await call('POST', '/v1/contacts', { email: p.email, phone: p.phone, first_name: p.firstName, last_name: p.lastName, custom_fields: { plan: p.plan } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const contactId = created.body.id as string;
  // the old address stays in the history: the erasure must cover it too
  expect((await call('PATCH', `/v1/contacts/${contactId}`, { email: p.newEmail })).status).toBe(200);
  // a push device: its token is the contact's personal data too (README "Push devices")
  expect((await call('POST', `/v1/contacts/${contactId}/devices`, { token: p.deviceToken, platform: 'android' })).status).toBe(201);
  const messageIds: string[] = [];
  for (const [to, channel] of [[p.email, 'email'], [p.newEmail, 'email'], [p.phone, 'sms']] as const) {
    const sent = await call('POST', '/v1/messages/send', {
      to, channel, message: p.body, ...(channel === 'email' ? { subject: p.subject } : {}), transactional: true, webhook_url: receiver.url,
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    messageIds.push(sent.body.id);
  }
  await eventually('the messages delivered', async () => {
    const rows = await messagesById(server, acct.key, messageIds);
    return rows.every((m) => m?.status === 'delivered') ? true : undefined;
  });
  return { contactId, messageIds };
}

describe('erasing a contact', () => {
  let acct: TestAccount;
  let p: Person;
  let contactId: string;
  let messageIds: string[];
  let endpointId: string;

  beforeAll(async () => {
    acct = await readyAccount(server);
    // an endpoint, so platform events with the contact's data sit in the outbox
    endpointId = await addWebhookEndpoint(server, acct.key, receiver.url);
    p = person();
    ({ contactId, messageIds } = await setUpPerson(acct, p));
  }, 120_000);

  it('stores personal data sealed: the event log never held it in clear', async () => {
    const { rows } = await server.engage.pool.query<{ t: string }>('SELECT data::text AS t FROM es_events');
    const text = rows.map((r) => r.t).join('\n');
    expect(valuesOf(p).filter((v) => text.includes(v))).toEqual([]);
    // …while reads show it
    const contact = await server.call('GET', `/v1/contacts/${contactId}`, { key: acct.key });
    expect(contact.body).toMatchObject({ email: p.newEmail, phone: p.phone, first_name: p.firstName, custom_fields: { plan: p.plan } });
  });

  it('needs the settings capability', async () => {
    const reader = await server.call('POST', '/v1/account/api-keys', { key: acct.key, body: { scopes: ['read', 'write'] } });
    const refused = await server.call('POST', `/v1/contacts/${contactId}/erase`, { key: reader.body.key, body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'settings' });
    // another account's contact is as missing as one that does not exist, and stays as it was
    const other = await readyAccount(server);
    for (const id of [contactId, 'ct_01JNOSUCHCONTACT0000000000']) {
      const missing = await server.call('POST', `/v1/contacts/${id}/erase`, { key: other.key, body: {} });
      expect(missing.status, id).toBe(404);
      expect(missing.body).toMatchObject({ error: 'not_found', message: expect.any(String) });
    }
    expect((await server.call('GET', `/v1/contacts/${contactId}`, { key: acct.key })).body.email).toBe(p.newEmail);
  });

  it('erases it: the contact is gone, its messages and timelines read [erased], and it is not messaged again', async () => {
    const erased = await server.call('POST', `/v1/contacts/${contactId}/erase`, { key: acct.key, body: { reason: 'asked by the person' } });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    expect(erased.body).toMatchObject({ id: contactId, erased: true, erasure_id: expect.stringMatching(/^er_/), erased_at: expect.any(String) });
    expect(erased.body.keys_destroyed).toBeGreaterThanOrEqual(3);

    expect((await server.call('GET', `/v1/contacts/${contactId}`, { key: acct.key })).status).toBe(404);
    expect((await server.call('PATCH', `/v1/contacts/${contactId}`, { key: acct.key, body: { first_name: 'x' } })).status).toBe(404);
    for (const id of messageIds) {
      const m = await server.call('GET', `/v1/messages/${id}`, { key: acct.key });
      expect(m.body).toMatchObject({ to: '[erased]', status: 'delivered' });
      const events = JSON.stringify(await timeline(server, acct.key, id));
      expect(valuesOf(p).filter((v) => events.includes(v))).toEqual([]);
    }
    // a new message to an erased address is accepted and fails: the person is not messaged again
    const again = await server.call('POST', '/v1/messages/send', { key: acct.key, body: { to: p.email, channel: 'email', subject: 'hi', message: 'hello', transactional: true } });
    expect(again.status).toBe(202);
    const ended = await eventually('the new message to fail', async () => {
      const m = await server.call('GET', `/v1/messages/${again.body.id}`, { key: acct.key });
      return m.body.status === 'failed' ? m.body : undefined;
    });
    expect(ended.reason).toMatch(/^(suppressed|recipient_erased)$/);
    expect(ended.to).toBe('[erased]');
    // the email is free for a new contact (a person who signs up again is a new contact)
    const fresh = await server.call('POST', '/v1/contacts', { key: acct.key, body: { email: p.newEmail } });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(201);
    await server.call('DELETE', `/v1/contacts/${fresh.body.id}`, { key: acct.key });
    await server.call('POST', `/v1/contacts/${fresh.body.id}/erase`, { key: acct.key, body: {} });
  });

  it('erasing again is a no-op that answers the same erasure', async () => {
    const first = await server.call('POST', `/v1/contacts/${contactId}/erase`, { key: acct.key, body: {} });
    const second = await server.call('POST', `/v1/contacts/${contactId}/erase`, { key: acct.key, body: {} });
    expect(second.status).toBe(200);
    expect(second.body.erasure_id).toBe(first.body.erasure_id);
  });

  it('keeps the history: the contact stream ends with ContactErased (who, when, why), every event still there', async () => {
    const events = await server.engage.store.readStream(contactStream(contactId));
    expect(events.map((e) => e.type)).toEqual(['ContactCreated', 'ContactUpdated', 'ContactDeviceRegistered', 'ContactErased']);
    expect(events[3].data).toMatchObject({ reason: 'asked by the person', erased_by: expect.stringMatching(/^key_/), key_ids: expect.any(Array) });
    expect(events[0].data).toMatchObject({ fields: { email: '[erased]', phone: '[erased]', first_name: '[erased]' }, custom_fields: {}, personal_data: { erased: true } });
  });

  it('leaves no erased value in any table, the event log or `engage streams show`, even after every read model is rebuilt', async () => {
    await rebuildEverything();
    const outputs = await everyTableAsText(server.engage.pool);
    for (const stream of [contactStream(contactId), ...messageIds.map(messageStream)]) {
      const shown = await runEngage(['streams', 'show', stream], server.databaseUrl);
      expect(shown.code, shown.stderr).toBe(0);
      outputs.set(`engage streams show ${stream}`, shown.stdout);
      const json = await runEngage(['streams', 'show', stream, '--json'], server.databaseUrl);
      outputs.set(`engage streams show ${stream} --json`, json.stdout);
    }
    expect(foundIn(outputs, valuesOf(p))).toEqual([]);
    // the rebuilt read models agree: counts and totals are intact, values erased
    const history = await server.call('GET', '/v1/messages/history?limit=50', { key: acct.key });
    const ours = history.body.data.filter((m: { id: string }) => messageIds.includes(m.id));
    expect(ours).toHaveLength(3);
    expect(ours.every((m: { to: string; status: string }) => m.to === '[erased]' && m.status === 'delivered')).toBe(true);
    // the deliveries to the endpoint and the message's webhook_url are still listed, blanked
    const deliveries = await server.call('GET', `/v1/webhook-endpoints/${endpointId}/deliveries?limit=50`, { key: acct.key });
    expect(deliveries.body.data.length).toBeGreaterThan(0);
  });
});

/** Every read model rebuilt one by one, as an operator does it: `engage projections rebuild <name>`. */
async function rebuildEachWithTheCli(): Promise<void> {
  const rebuilt = await runEngage(['projections', 'rebuild', '--all'], server.databaseUrl);
  expect(rebuilt.code, `engage projections rebuild --all: ${rebuilt.stderr}`).toBe(0);
  // a line for each read model that can be rebuilt, each swapped in and running
  const rebuildable = ALL_PROJECTIONS.filter((x) => x.rebuildable !== false).map((x) => x.name);
  expect(rebuilt.stdout.trim().split('\n').map((line) => line.replace(/ at .*/, ''))).toEqual(rebuildable.map((name) => `${name}: running`));
  const { rows } = await server.engage.pool.query<{ name: string; generation: number }>('SELECT name, generation FROM projection_state WHERE active AND name = ANY($1::text[]) ORDER BY name', [rebuildable]);
  expect(rows.every((r) => r.generation > 1), JSON.stringify(rows)).toBe(true);
}

describe('the reported sequence (issue 25, finding 4): contacts, messages, a tracked event, an erasure, every read model rebuilt with the CLI', () => {
  // "send it an sms and an email, track an event by its email, erase it": "it" read as the contact
  // erased, as the second contact (the first erased), and as the second contact throughout
  const readings = [
    { name: 'messages and event to the erased contact', messagesTo: 'erased', erase: 'first' },
    { name: 'messages and event to the second contact, the first erased', messagesTo: 'second', erase: 'first' },
    { name: 'messages and event to the second contact, which is erased', messagesTo: 'second', erase: 'second' },
  ] as const;

  it('leaves no erased value in any table of any generation, unique_claims included', async () => {
    const erasedValues: { reading: string; values: string[] }[] = [];
    for (const reading of readings) {
      const acct = await readyAccount(server);
      const call = (method: string, path: string, body?: unknown) => server.call(method, path, { key: acct.key, body });
      const first = person();
      const second = person();
      const made = [];
      for (const x of [first, second]) {
        const created = await call('POST', '/v1/contacts', { email: x.email, phone: x.phone, first_name: x.firstName, last_name: x.lastName });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        made.push(created.body.id as string);
      }
      const target = reading.messagesTo === 'erased' ? first : second;
      const ids: string[] = [];
      for (const [to, channel] of [[target.phone, 'sms'], [target.email, 'email']] as const) {
        const sent = await call('POST', '/v1/messages/send', { to, channel, message: target.body, ...(channel === 'email' ? { subject: target.subject } : {}), transactional: true });
        expect(sent.status, JSON.stringify(sent.body)).toBe(202);
        ids.push(sent.body.id);
      }
      await eventually('the messages delivered', async () => {
        const rows = await messagesById(server, acct.key, ids);
        return rows.every((m) => m?.status === 'delivered') ? true : undefined;
      });
      const tracked = await call('POST', '/v1/events', { contact: { email: target.email }, name: 'Order Completed', properties: { plan: target.plan } });
      expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
      expect(tracked.body.results[0]).toMatchObject({ status: 'accepted' });
      const [erasedId, erasedPerson] = reading.erase === 'first' ? [made[0], first] : [made[1], second];
      const erased = await call('POST', `/v1/contacts/${erasedId}/erase`, {});
      expect(erased.status, JSON.stringify(erased.body)).toBe(200);
      const { email, phone, firstName, lastName, plan } = erasedPerson;
      erasedValues.push({ reading: reading.name, values: [email, phone, firstName, lastName, ...(erasedPerson === target ? [plan, target.body, target.subject] : [])] });
    }
    await rebuildEachWithTheCli();
    const outputs = await everyTableAsText(server.engage.pool);
    expect([...outputs.keys()].some((t) => /contacts_g\d+/.test(t)), 'a rebuilt generation of contacts').toBe(true);
    expect(outputs.has('public.unique_claims')).toBe(true);
    expect(erasedValues.flatMap(({ reading, values }) => foundIn(outputs, values).map((f) => `${reading}: ${f}`))).toEqual([]);
  }, 600_000);
});

describe('erasing an address', () => {
  it('erases messages to an address of no contact, and the contacts that have it; refuses a body without exactly one address', async () => {
    const acct = await readyAccount(server);
    const p = person();
    const call = (method: string, path: string, body?: unknown) => server.call(method, path, { key: acct.key, body });
    const loose = await call('POST', '/v1/messages/send', { to: p.phone, channel: 'sms', message: p.body, transactional: true });
    const contact = await call('POST', '/v1/contacts', { email: p.email, first_name: p.firstName });
    const toContact = await call('POST', '/v1/messages/send', { to: p.email, channel: 'email', subject: p.subject, message: p.body, transactional: true });
    expect([loose.status, contact.status, toContact.status]).toEqual([202, 201, 202]);

    for (const body of [{}, { email: p.email, phone: p.phone }, { email: 'not an email' }]) {
      const bad = await call('POST', '/v1/account/erasures', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error).toBe('validation_error');
    }
    const byPhone = await call('POST', '/v1/account/erasures', { phone: p.phone, reason: 'request by phone' });
    expect(byPhone.status, JSON.stringify(byPhone.body)).toBe(200);
    expect(byPhone.body).toMatchObject({ erasure_id: expect.stringMatching(/^er_/), contact_ids: [] });
    expect((await call('GET', `/v1/messages/${loose.body.id}`)).body.to).toBe('[erased]');
    expect((await call('GET', `/v1/messages/${toContact.body.id}`)).body.to).toBe(p.email);

    const byEmail = await call('POST', '/v1/account/erasures', { email: p.email.toUpperCase() });
    expect(byEmail.status).toBe(200);
    expect(byEmail.body.contact_ids).toEqual([contact.body.id]);
    expect((await call('GET', `/v1/contacts/${contact.body.id}`)).status).toBe(404);
    expect((await call('GET', `/v1/messages/${toContact.body.id}`)).body.to).toBe('[erased]');
    // another account's contact with the same address is untouched
    const other = await readyAccount(server);
    const theirs = await server.call('POST', '/v1/contacts', { key: other.key, body: { email: p.newEmail } });
    await call('POST', '/v1/account/erasures', { email: p.newEmail });
    expect((await server.call('GET', `/v1/contacts/${theirs.body.id}`, { key: other.key })).body.email).toBe(p.newEmail);

    const outputs = await everyTableAsText(server.engage.pool);
    expect(foundIn(outputs, [p.phone, p.email, p.firstName, p.body, p.subject])).toEqual([]);
  }, 120_000);
});

describe('erasure under concurrent sends to the same contact', () => {
  it('every message reads [erased] afterwards, and none is sent that was not already being sent when the erasure finished', async () => {
    const acct = await readyAccount(server);
    const p = person();
    const contact = await server.call('POST', '/v1/contacts', { key: acct.key, body: { email: p.email } });
    const send = () => server.call('POST', '/v1/messages/send', { key: acct.key, body: { to: p.email, channel: 'email', subject: p.subject, message: p.body, transactional: true } });
    const sends: Promise<{ body: { id: string } }>[] = [];
    const burst = (n: number) => {
      for (let i = 0; i < n; i++) sends.push(send());
    };
    burst(20);
    const erasing = server.call('POST', `/v1/contacts/${contact.body.id}/erase`, { key: acct.key, body: {} });
    burst(20);
    const erased = await erasing;
    const erasureDone = Date.now();
    expect(erased.status).toBe(200);
    const ids = (await Promise.all(sends)).map((r) => r.body.id);
    expect(ids).toHaveLength(40);

    const finals = await eventually('every message in a final state', async () => {
      const rows = await messagesById(server, acct.key, ids);
      return rows.every((m) => m && ['delivered', 'failed'].includes(m.status)) ? (rows as Record<string, any>[]) : undefined;
    }, 60_000);
    for (const m of finals) {
      expect(m.to, m.id).toBe('[erased]');
      const events = await timeline(server, acct.key, m.id);
      const claimedAt = events.find((e) => e.type === 'MessageDispatching')?.at;
      if (!claimedAt || Date.parse(claimedAt) > erasureDone) {
        // not yet being sent when the erasure finished: never sent
        expect(m.status, m.id).toBe('failed');
        expect(m.reason, m.id).toMatch(/^(suppressed|recipient_erased)$/);
      }
    }
    const outputs = await everyTableAsText(server.engage.pool);
    expect(foundIn(outputs, [p.email, p.body, p.subject])).toEqual([]);
  }, 120_000);
});
