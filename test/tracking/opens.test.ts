// Open tracking of HTML email (README "Templates": open tracking): the mail a real SMTP server
// receives carries a 1×1 pixel; fetching it records MessageOpened on the message (its count, the
// first reader's open), the contact's email.opened (segments) and email.opened to a subscribed
// endpoint; a fetch from an image proxy's range or right after the send is a machine's: counted
// apart, never a unique open, on no contact and at no endpoint; a token that is not genuine records
// nothing; the analytics report counts opens and the open rate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageStream } from '../../commands/message.ts';
import { clickTrackingKey } from '../../src/tracking/links.ts';
import { signOpenToken } from '../../src/tracking/opens.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { type Receiver, startReceiver } from '../support/receivers.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../support/smtp-receiver.ts';
import { eventually } from '../support/waits.ts';

let smtp: SmtpReceiver;
let hooks: Receiver;
let server: TestServer;
/** an address of Apple's image proxies (17.0.0.0/8) */
const APPLE_PROXY = '17.58.100.7';

beforeAll(async () => {
  [smtp, hooks] = await Promise.all([startSmtpReceiver(), startReceiver()]);
  server = await startTestServer({
    SMTP_URL: smtp.url,
    EMAIL_FROM: 'news@mail.example.test',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // the test client's requests come through loopback: X-Forwarded-For says where a fetch came from
    TRUST_PROXY: 'loopback',
    OPEN_MACHINE_SECONDS: '2',
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await Promise.all([smtp?.close(), hooks?.close()]);
});

async function ok(key: string, method: string, path: string, body?: unknown, status = 200) {
  const res = await server.call(method, path, { key, body });
  expect(res.status, `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

const opensOf = async (id: string) =>
  (await server.engage.store.readStream(messageStream(id))).filter((e) => e.type === 'MessageOpened').map((e) => {
    const { count, first, machine } = e.data as { count: number; first: boolean; machine: boolean };
    return { count, first, machine };
  });

/** Fetches the pixel from `ip`: always the GIF. */
async function fetchPixel(path: string, ip: string) {
  const res = await server.call('GET', path, { headers: { 'x-forwarded-for': ip } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/gif');
  expect(res.headers.get('cache-control')).toContain('no-store');
  return res;
}

describe('open tracking', () => {
  it('records readers’ opens on the message, the contact and the endpoint, and machines’ apart', async () => {
    const { key } = await server.newAccount();
    await ok(key, 'POST', '/v1/webhook-endpoints', { url: hooks.url, events: ['email.opened'] }, 201);
    const contact = await ok(key, 'POST', '/v1/contacts', { email: 'ada@example.com', first_name: 'Ada' }, 201);
    const sent = await ok(key, 'POST', '/v1/messages/send', { to: 'ada@example.com', channel: 'email', subject: 'Hi', message: 'Hi', htmlmessage: '<html><body><p>Hi</p></body></html>', transactional: true }, 202);
    const mail = await eventually('the mail', async () => smtp.find(sent.id)?.mail, 60_000);
    const src = /<img src="([^"]+\/o\/[^"]+)" width="1" height="1"/.exec(String(mail.html))?.[1];
    expect(src, String(mail.html)).toBeDefined();
    expect(String(mail.html)).toMatch(/<p>Hi<\/p><img [^>]+\/><\/body>/);
    const path = new URL(src!).pathname;

    // right after the send: a scanner's fetch
    await fetchPixel(path, '203.0.113.9');
    // from Apple's proxies: a machine whatever the time
    await eventually('the send to be two seconds old', async () => (Date.now() - Date.parse((await ok(key, 'GET', `/v1/messages/${sent.id}`)).sent_at) > 2100 ? true : undefined), 10_000);
    await fetchPixel(path, APPLE_PROXY);
    // readers
    await fetchPixel(path, '203.0.113.9');
    await fetchPixel(path, '198.51.100.20');
    expect(await opensOf(sent.id)).toEqual([
      { count: 1, first: false, machine: true },
      { count: 2, first: false, machine: true },
      { count: 3, first: true, machine: false },
      { count: 4, first: false, machine: false },
    ]);

    // a HEAD, a token that is not genuine, a click's token: the image, and nothing recorded
    expect((await server.call('HEAD', path)).status).toBe(200);
    await fetchPixel(`${path.slice(0, -3)}AAA`, '203.0.113.9');
    await fetchPixel('/o/not-a-token', '203.0.113.9');
    expect(await opensOf(sent.id)).toHaveLength(4);

    // the readers' opens reach the endpoint and the contact; the machines' do not
    const hits = await eventually('two email.opened deliveries', async () => {
      const mine = hooks.hits.filter((h) => h.json?.type === 'email.opened' && h.json.data.message_id === sent.id);
      return mine.length >= 2 ? mine : undefined;
    }, 60_000);
    // deliveries go out concurrently (README "Webhooks"): their arrival order is not the opens' order
    expect(hits.map((h) => ({ first: h.json.data.first, opens: h.json.data.opens })).sort((a, b) => a.opens - b.opens)).toEqual([{ first: true, opens: 3 }, { first: false, opens: 4 }]);
    const readers = await eventually('the contact’s two opens in segments', async () => {
      const r = await ok(key, 'POST', '/v1/segments/preview', { rules: { match: 'all', rules: [{ field: 'event.email.opened', operator: 'performed', count: 2 }] }, sample: true });
      return r.count === 1 ? r : undefined;
    }, 30_000);
    expect(readers.sample[0].id).toBe(contact.id);
    const thrice = await ok(key, 'POST', '/v1/segments/preview', { rules: { match: 'all', rules: [{ field: 'event.email.opened', operator: 'performed', count: 3 }] } });
    expect(thrice.count).toBe(0);

    // the report: two reader opens, one unique, two machine opens
    const report = await eventually('the analytics to count the opens', async () => {
      const r = await ok(key, 'GET', '/v1/account/analytics?channel=email');
      return r.totals.opened === 2 ? r : undefined;
    }, 60_000);
    expect(report.totals).toMatchObject({ opened: 2, unique_opens: 1, machine_opens: 2 });
    // of the messages delivered, the share a reader opened (none delivered yet over SMTP: no rate)
    expect(report.totals.open_rate).toBe(report.totals.delivered ? 1 / report.totals.delivered : null);
  });

  it('puts no pixel in a plain-text email and records nothing for a message never sent', async () => {
    const { key } = await server.newAccount();
    const plain = await ok(key, 'POST', '/v1/messages/send', { to: 'bob@example.com', channel: 'email', subject: 'Hi', message: 'Plain', transactional: true }, 202);
    const mail = await eventually('the mail', async () => smtp.find(plain.id)?.mail, 60_000);
    expect(mail.html).toBeFalsy();
    expect(mail.text).not.toContain('/o/');
    // a genuine token of a message not sent (scheduled): the image, and no open
    const later = await ok(key, 'POST', '/v1/messages/send', {
      to: 'bob@example.com', channel: 'email', subject: 'Hi', message: 'Later', htmlmessage: '<p>Later</p>', transactional: true, scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
    }, 202);
    await fetchPixel(`/o/${signOpenToken(await clickTrackingKey(server.engage.pool), later.id)}`, '203.0.113.9');
    expect(await opensOf(later.id)).toEqual([]);
  });
});
