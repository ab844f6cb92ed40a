// Campaigns over HTTP: a campaign to a list sends one message per member with an address on the
// channel (the others skipped), through the ordinary dispatch (a suppressed member's message fails
// by policy), shows its messages by status, and emits campaign.sent once every message is accepted;
// a push campaign addresses each member with a device by its contact id (every device gets it);
// a scheduled one is sent when due or can be cancelled before; validation, tenant isolation, a
// send resumed after it stopped part-way never sends a member twice, and a deleted list fails it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignStream } from '../../commands/campaign.ts';
import { campaignsProjection } from '../../projections/campaigns.ts';
import { sendCampaign } from '../../src/campaigns/service.ts';
import { suppressRecipient } from '../../src/messages/suppressions.ts';
import { readyAccount } from '../support/accounts.ts';
import { withAppendMany } from '../support/append-many.ts';
import { startTestServer, testServerForSuite, type TestServer } from '../support/harness.ts';
import { startReceiver } from '../support/receivers.ts';
import { rebuildAndWait } from '../support/rebuild.ts';
import { eventually } from '../support/waits.ts';

const CAMPAIGN_ID_RE = /^cmp_[0-9A-HJKMNP-TV-Z]{26}$/;

async function ok(server: TestServer, method: string, path: string, key: string, body?: unknown, status = 200) {
  const res = await server.call(method, path, { key, body });
  expect(res.status, `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

/** A list of new contacts: `emails` with an email each, and `phoneOnly` contacts with only a phone. */
async function listWith(server: TestServer, key: string, emails: number, phoneOnly = 0) {
  const list = await ok(server, 'POST', '/v1/lists', key, { name: 'Audience' }, 201);
  const contacts: { id: string; email?: string; phone?: string }[] = [];
  for (let i = 0; i < emails; i++) {
    const email = `member-${i}-${list.id.slice(-6).toLowerCase()}@example.com`;
    contacts.push({ id: (await ok(server, 'POST', '/v1/contacts', key, { email }, 201)).id, email });
  }
  for (let i = 0; i < phoneOnly; i++) {
    const phone = `+1415555${String(1000 + i + Math.floor(Math.random() * 8000)).padStart(4, '0')}`;
    contacts.push({ id: (await ok(server, 'POST', '/v1/contacts', key, { phone }, 201)).id, phone });
  }
  for (const c of contacts) await ok(server, 'POST', `/v1/lists/${list.id}/contacts`, key, { contact_id: c.id }, 201);
  return { listId: list.id as string, contacts };
}

const emailCampaign = (listId: string, extra: Record<string, unknown> = {}) => ({
  name: 'Spring sale', audience: { list_id: listId }, channel: 'email', subject: 'Spring', message: 'Hello from the spring sale', ...extra,
});

async function campaignMessages(server: TestServer, key: string, campaignId: string) {
  await server.caughtUp(['messages']);
  const { rows } = await server.engage.pool.query<{ id: string; to_address: string; status: string }>(
    'SELECT id, to_address, status FROM messages WHERE campaign_id = $1 ORDER BY to_address',
    [campaignId],
  );
  return rows;
}

describe('sending a campaign to a list', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('sends one message per member with an email, skips the others, counts them by status and emits campaign.sent', async () => {
    const { key, accountId } = await readyAccount(server);
    const receiver = await startReceiver();
    try {
      await ok(server, 'POST', '/v1/webhook-endpoints', key, { url: receiver.url, events: ['campaign.sent'] }, 201);
      const { listId, contacts } = await listWith(server, key, 3, 1);
      const campaign = await ok(server, 'POST', '/v1/campaigns', key, emailCampaign(listId), 201);
      expect(campaign).toMatchObject({
        id: expect.stringMatching(CAMPAIGN_ID_RE), name: 'Spring sale', audience: { list_id: listId }, channel: 'email', subject: 'Spring',
        message: 'Hello from the spring sale', status: 'sending', scheduled_at: null,
      });
      const sent = await eventually('the campaign to be sent', async () => {
        const c = await ok(server, 'GET', `/v1/campaigns/${campaign.id}`, key);
        return c.status === 'sent' ? c : undefined;
      });
      expect(sent).toMatchObject({ accepted: 3, skipped: 1, sent_at: expect.any(String) });
      const messages = await campaignMessages(server, key, campaign.id);
      expect(messages.map((m) => m.to_address)).toEqual(contacts.filter((c) => c.email).map((c) => c.email).sort());
      // the messages go through the ordinary dispatch: the sandbox sends and then delivers them
      const counted = await eventually('every campaign message delivered', async () => {
        const c = await ok(server, 'GET', `/v1/campaigns/${campaign.id}`, key);
        return c.messages.delivered === 3 ? c : undefined;
      });
      expect(counted.messages).toEqual({ scheduled: 0, queued: 0, sent: 0, delivered: 3, failed: 0, cancelled: 0 });
      // each message is an ordinary message: readable by id, addressed to its member
      const one = await ok(server, 'GET', `/v1/messages/${messages[0].id}`, key);
      expect(one).toMatchObject({ channel: 'email', to: messages[0].to_address, subject: 'Spring', transactional: false });
      const hit = await eventually('campaign.sent at the endpoint', async () => receiver.hits.find((h) => JSON.parse(h.body).type === 'campaign.sent'));
      expect(JSON.parse(hit.body)).toMatchObject({
        type: 'campaign.sent', account_id: accountId, data: { campaign_id: campaign.id, name: 'Spring sale', accepted: 3, skipped: 1, sent_at: sent.sent_at },
      });
      expect(receiver.hits.filter((h) => JSON.parse(h.body).type === 'campaign.sent')).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('sends on sms to members with a phone, and a suppressed member’s message fails by policy', async () => {
    const { key, accountId } = await readyAccount(server);
    const { listId, contacts } = await listWith(server, key, 1, 2);
    const phones = contacts.filter((c) => c.phone);
    const stored = await Promise.all(phones.map(async (c) => (await ok(server, 'GET', `/v1/contacts/${c.id}`, key)).phone as string));
    await suppressRecipient(server.engage, { accountId, address: stored[0], reason: 'stop', source: 'test' }, { actor: 'test' });
    const campaign = await ok(server, 'POST', '/v1/campaigns', key, { name: 'Texts', audience: { list_id: listId }, channel: 'sms', message: 'Sale today' }, 201);
    const done = await eventually('both sms settled', async () => {
      const c = await ok(server, 'GET', `/v1/campaigns/${campaign.id}`, key);
      return c.status === 'sent' && c.messages.failed === 1 && c.messages.delivered === 1 ? c : undefined;
    });
    expect(done).toMatchObject({ accepted: 2, skipped: 1 });
    const messages = await campaignMessages(server, key, campaign.id);
    expect(messages.find((m) => m.to_address === stored[0])?.status).toBe('failed');
    expect(messages.find((m) => m.to_address === stored[1])?.status).toBe('delivered');
  });
});

describe('sending a campaign to a segment', () => {
  const server = testServerForSuite();

  it('sends to the contacts matching the segment when it is sent, and a deleted segment fails it', async () => {
    const { key } = await readyAccount(server);
    const vip = async (email: string, tags: string[]) => (await ok(server, 'POST', '/v1/contacts', key, { email, tags }, 201)).id as string;
    await vip('vip-1@example.com', ['vip']);
    await vip('plain@example.com', []);
    const segment = await ok(server, 'POST', '/v1/segments', key, { name: 'VIPs', rules: { match: 'all', rules: [{ field: 'tag', operator: 'has', value: 'vip' }] } }, 201);
    const later = new Date(Date.now() + 1500).toISOString();
    const campaign = await ok(server, 'POST', '/v1/campaigns', key, { ...emailCampaign('unused'), audience: { segment_id: segment.id }, scheduled_at: later }, 201);
    expect(campaign.audience).toEqual({ segment_id: segment.id });
    // a contact that joins the segment before the send is in its audience: it is resolved when sent
    await vip('vip-2@example.com', ['vip', 'new']);
    const sent = await eventually('the segment campaign to be sent', async () => {
      const c = await ok(server, 'GET', `/v1/campaigns/${campaign.id}`, key);
      return c.status === 'sent' ? c : undefined;
    });
    expect(sent).toMatchObject({ accepted: 2, skipped: 0 });
    expect((await campaignMessages(server, key, campaign.id)).map((m) => m.to_address)).toEqual(['vip-1@example.com', 'vip-2@example.com']);

    const doomed = await ok(server, 'POST', '/v1/campaigns', key, { ...emailCampaign('unused'), audience: { segment_id: segment.id }, scheduled_at: new Date(Date.now() + 1500).toISOString() }, 201);
    await ok(server, 'DELETE', `/v1/segments/${segment.id}`, key);
    const failed = await eventually('the campaign of a deleted segment to fail', async () => {
      const c = await ok(server, 'GET', `/v1/campaigns/${doomed.id}`, key);
      return c.status === 'failed' ? c : undefined;
    });
    expect(failed).toMatchObject({ failure_reason: 'the segment was deleted', accepted: 0 });
    // a missing segment is refused when the campaign is created
    const res = await server.call('POST', '/v1/campaigns', { key, body: { ...emailCampaign('unused'), audience: { segment_id: segment.id } } });
    expect(res.status).toBe(400);
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(['audience.segment_id']);
  });

  it('on push addresses each member with a device by its contact id, reaches every device, and skips members without one', async () => {
    const { key } = await readyAccount(server);
    const token = () => `fcm:${randomBytes(20).toString('base64url')}`;
    const appUser = async (tokens: string[]) => {
      const id = (await ok(server, 'POST', '/v1/contacts', key, { email: `app-${randomBytes(4).toString('hex')}@example.com`, tags: ['app'] }, 201)).id as string;
      for (const t of tokens) await ok(server, 'POST', `/v1/contacts/${id}/devices`, key, { token: t, platform: 'android' }, 201);
      return id;
    };
    const twoDevices = await appUser([token(), token()]);
    const oneDevice = await appUser([token()]);
    await appUser([]);
    const segment = await ok(server, 'POST', '/v1/segments', key, { name: 'App users', rules: { match: 'all', rules: [{ field: 'tag', operator: 'has', value: 'app' }] } }, 201);
    const campaign = await ok(server, 'POST', '/v1/campaigns', key, { name: 'Flash sale', audience: { segment_id: segment.id }, channel: 'push', message: 'Two hours only' }, 201);
    expect(campaign).toMatchObject({ channel: 'push', message: 'Two hours only' });
    const sent = await eventually('the push campaign to be sent', async () => {
      const c = await ok(server, 'GET', `/v1/campaigns/${campaign.id}`, key);
      return c.status === 'sent' ? c : undefined;
    });
    // the member without a device is skipped, as a member without an email is on email
    expect(sent).toMatchObject({ accepted: 2, skipped: 1 });
    const messages = await campaignMessages(server, key, campaign.id);
    expect(messages.map((m) => m.to_address)).toEqual([twoDevices, oneDevice].sort());
    // each message goes to every device of its contact: one sandbox call per device
    await eventually('both pushes delivered', async () => {
      const c = await ok(server, 'GET', `/v1/campaigns/${campaign.id}`, key);
      return c.messages.delivered === 2 ? c : undefined;
    });
    const calls = server.workers.messaging!.providers.sandbox.calls;
    expect(Object.fromEntries(messages.map((m) => [m.to_address, calls.get(m.id)]))).toEqual({ [twoDevices]: 2, [oneDevice]: 1 });
    expect(await ok(server, 'GET', `/v1/messages/${messages[0].id}`, key)).toMatchObject({ channel: 'push', to: messages[0].to_address, message: 'Two hours only', transactional: false });
  });
});

describe('a scheduled campaign', () => {
  const server = testServerForSuite();

  it('is scheduled, can be cancelled (then 409 never sends), and a campaign being sent is not cancellable', async () => {
    const { key } = await readyAccount(server);
    const { listId } = await listWith(server, key, 1);
    const later = new Date(Date.now() + 3600_000).toISOString();
    const scheduled = await ok(server, 'POST', '/v1/campaigns', key, emailCampaign(listId, { scheduled_at: later }), 201);
    expect(scheduled).toMatchObject({ status: 'scheduled', scheduled_at: later });
    const cancelled = await ok(server, 'POST', `/v1/campaigns/${scheduled.id}/cancel`, key);
    expect(cancelled).toMatchObject({ status: 'cancelled', cancelled_at: expect.any(String) });
    // cancelling again changes nothing
    expect((await ok(server, 'POST', `/v1/campaigns/${scheduled.id}/cancel`, key)).status).toBe('cancelled');

    const now = await ok(server, 'POST', '/v1/campaigns', key, emailCampaign(listId), 201);
    const res = await server.call('POST', `/v1/campaigns/${now.id}/cancel`, { key });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'not_cancellable', status: expect.stringMatching(/^(sending|sent)$/) });
    expect((await campaignMessages(server, key, scheduled.id)).length).toBe(0);
    const listed = await ok(server, 'GET', '/v1/campaigns?status=cancelled', key);
    expect(listed.data.map((c: { id: string }) => c.id)).toEqual([scheduled.id]);
  });

  it('is sent when it falls due', async () => {
    const { key } = await readyAccount(server);
    const { listId } = await listWith(server, key, 2);
    const soon = new Date(Date.now() + 1500).toISOString();
    const campaign = await ok(server, 'POST', '/v1/campaigns', key, emailCampaign(listId, { scheduled_at: soon }), 201);
    expect(campaign.status).toBe('scheduled');
    const sent = await eventually('the scheduled campaign to be sent', async () => {
      const c = await ok(server, 'GET', `/v1/campaigns/${campaign.id}`, key);
      return c.status === 'sent' ? c : undefined;
    });
    expect(sent.accepted).toBe(2);
    expect(Date.parse(sent.started_at)).toBeGreaterThanOrEqual(Date.parse(soon));
  });

  it('a requested rebuild of the campaigns read model replays the log into the same rows', async () => {
    // after the tests above (cancelled, sent, sent when due); one more account with one of each
    const { key } = await readyAccount(server);
    const { listId } = await listWith(server, key, 2);
    const later = new Date(Date.now() + 3600_000).toISOString();
    await ok(server, 'POST', '/v1/campaigns', key, emailCampaign(listId, { scheduled_at: later }), 201);
    const sent = await ok(server, 'POST', '/v1/campaigns', key, emailCampaign(listId), 201);
    await eventually('the campaign to be sent', async () => ((await ok(server, 'GET', `/v1/campaigns/${sent.id}`, key)).status === 'sent' ? true : undefined));
    const deleted = await ok(server, 'POST', '/v1/lists', key, { name: 'Gone' }, 201);
    const scheduledOnGone = await ok(server, 'POST', '/v1/campaigns', key, emailCampaign(deleted.id, { scheduled_at: later }), 201);
    await ok(server, 'POST', `/v1/campaigns/${scheduledOnGone.id}/cancel`, key);

    const snapshot = async () => (await server.engage.pool.query<{ r: string }>('SELECT row_to_json(t)::text AS r FROM campaigns t ORDER BY id')).rows.map((x) => x.r);
    await server.caughtUp(['campaigns']);
    const before = await snapshot();
    expect(before.length).toBeGreaterThanOrEqual(3);
    const page = await ok(server, 'GET', '/v1/campaigns', key);
    expect(page.data.map((c: { status: string }) => c.status).sort()).toEqual(['cancelled', 'scheduled', 'sent']);

    await rebuildAndWait(server, campaignsProjection);
    expect(await snapshot()).toEqual(before);
    expect(await ok(server, 'GET', '/v1/campaigns', key)).toEqual(page);
  });
});

describe('campaign validation and isolation', () => {
  const server = testServerForSuite();

  it('names every invalid field, and refuses a missing list and another account’s list', async () => {
    const { key } = await readyAccount(server);
    const other = await readyAccount(server);
    const { listId } = await listWith(server, key, 1);
    const { listId: othersList } = await listWith(server, other.key, 1);
    const bad = async (body: unknown, paths: string[]) => {
      const res = await server.call('POST', '/v1/campaigns', { key, body });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(res.body.issues.map((i: { path: string }) => i.path).sort()).toEqual(paths.sort());
    };
    await bad({ audience: { list_id: listId }, channel: 'email', message: 'x' }, ['name']);
    await bad({ name: 'x', audience: {}, channel: 'email', message: 'x' }, ['audience']);
    await bad({ name: 'x', audience: { list_id: 'lst_1', segment_id: 'seg_1' }, channel: 'email', message: 'x' }, ['audience']);
    await bad({ name: 'x', audience: { list_id: listId }, channel: 'fax', message: 'x' }, ['channel']);
    await bad({ name: 'x', audience: { list_id: listId }, channel: 'sms', message: 'x', subject: 'no' }, ['subject']);
    await bad({ name: 'x', audience: { list_id: listId }, channel: 'email', message: 'x', scheduled_at: '2001-01-01T00:00:00Z' }, ['scheduled_at']);
    await bad({ name: 'x', audience: { list_id: listId }, channel: 'email', message: 'x', to: 'a@example.com' }, ['to']);
    await bad({ name: 'x', audience: { list_id: listId }, channel: 'email', message: 'x', colour: 'red' }, ['colour']);
    await bad([], ['']);
    // another account's list is as missing as a list that never was
    await bad({ name: 'x', audience: { list_id: othersList }, channel: 'email', message: 'x' }, ['audience.list_id']);
    await bad({ name: 'x', audience: { list_id: 'lst_01ARZ3NDEKTSV4RRFFQ69G5FAV' }, channel: 'email', message: 'x' }, ['audience.list_id']);
    expect((await ok(server, 'GET', '/v1/campaigns', key)).data).toEqual([]);
  });

  it("another account's campaign is not found", async () => {
    const a = await readyAccount(server);
    const b = await readyAccount(server);
    const { listId } = await listWith(server, a.key, 1);
    const campaign = await ok(server, 'POST', '/v1/campaigns', a.key, emailCampaign(listId, { scheduled_at: new Date(Date.now() + 3600_000).toISOString() }), 201);
    for (const [method, path] of [['GET', `/v1/campaigns/${campaign.id}`], ['POST', `/v1/campaigns/${campaign.id}/cancel`]] as const) {
      const res = await server.call(method, path, { key: b.key });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
    expect((await ok(server, 'GET', '/v1/campaigns', b.key)).data).toEqual([]);
  });
});

describe('a send that stops part-way', () => {
  const server = testServerForSuite({ WORKERS_ENABLED: 'false' });

  it('resumes after its last batch and sends every member exactly once', async () => {
    const { key } = await readyAccount(server);
    const { listId, contacts } = await listWith(server, key, 7);
    const campaign = await ok(server, 'POST', '/v1/campaigns', key, emailCampaign(listId), 201);
    // the store fails the second batch's append: the sender stops after one batch of 3
    const engage = server.engage;
    let appends = 0;
    const failing = withAppendMany(engage, async (appendMany, batch) => {
      if (++appends === 2) throw new Error('connection lost');
      return appendMany(batch);
    });
    await expect(sendCampaign(failing, campaign.id, { actor: 'test' }, 3)).rejects.toThrow('connection lost');
    expect((await campaignMessages(server, key, campaign.id)).length).toBe(3);
    // a second sender (after a restart) carries on after the first batch
    await sendCampaign(engage, campaign.id, { actor: 'test' }, 3);
    const messages = await campaignMessages(server, key, campaign.id);
    expect(messages.map((m) => m.to_address)).toEqual(contacts.map((c) => c.email).sort());
    await server.caughtUp(['campaigns']);
    const done = await ok(server, 'GET', `/v1/campaigns/${campaign.id}`, key);
    expect(done).toMatchObject({ status: 'sent', accepted: 7, skipped: 0 });
    const types = (await engage.store.readStream(campaignStream(campaign.id))).map((e) => e.type);
    expect(types).toEqual(['CampaignCreated', 'CampaignSendStarted', 'CampaignBatchAccepted', 'CampaignBatchAccepted', 'CampaignBatchAccepted', 'CampaignSent']);
    // sending again changes nothing
    await sendCampaign(engage, campaign.id, { actor: 'test' }, 3);
    expect((await campaignMessages(server, key, campaign.id)).length).toBe(7);
  });

  it('sends every member exactly once when two senders run at once (pages read ahead by the one that loses a batch are dropped)', async () => {
    const { key } = await readyAccount(server);
    const { listId, contacts } = await listWith(server, key, 12);
    const campaign = await ok(server, 'POST', '/v1/campaigns', key, emailCampaign(listId), 201);
    // pages of 2 and of 3: the senders' batches differ, so the one that finds the other's batch
    // recorded first carries on after it (two senders with the same pages write the very same events)
    await Promise.all([sendCampaign(server.engage, campaign.id, { actor: 'test' }, 2), sendCampaign(server.engage, campaign.id, { actor: 'test' }, 3)]);
    const messages = await campaignMessages(server, key, campaign.id);
    expect(messages.map((m) => m.to_address)).toEqual(contacts.map((c) => c.email).sort());
    // the recorded batches follow each other: each covers the members after the one before it
    const batches = (await server.engage.store.readStream(campaignStream(campaign.id))).filter((e) => e.type === 'CampaignBatchAccepted').map((e) => e.data as { through_contact_id: string; accepted: number });
    const order = contacts.map((c) => c.id).sort();
    let covered = 0;
    for (const b of batches) {
      const through = order.indexOf(b.through_contact_id) + 1;
      expect(b.accepted).toBe(through - covered);
      covered = through;
    }
    expect(covered).toBe(12);
    await server.caughtUp(['campaigns']);
    expect(await ok(server, 'GET', `/v1/campaigns/${campaign.id}`, key)).toMatchObject({ status: 'sent', accepted: 12, skipped: 0 });
  });

  it('fails when its list was deleted before it was sent', async () => {
    const { key } = await readyAccount(server);
    const { listId } = await listWith(server, key, 2);
    const campaign = await ok(server, 'POST', '/v1/campaigns', key, emailCampaign(listId), 201);
    await ok(server, 'DELETE', `/v1/lists/${listId}`, key);
    await sendCampaign(server.engage, campaign.id, { actor: 'test' });
    await server.caughtUp(['campaigns']);
    expect(await ok(server, 'GET', `/v1/campaigns/${campaign.id}`, key)).toMatchObject({ status: 'failed', failure_reason: 'the list was deleted', accepted: 0 });
  });
});
