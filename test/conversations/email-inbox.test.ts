// Inbound email and the inbox (issue 13): the SMTP listener takes mail for the accounts' reply
// addresses only, threads it into the sender's email conversation, and a reply goes out in the same
// email thread; the inbox filters, changes state, refuses bad input, forgets an erased contact's
// words, and rebuilds into the same rows.
import nodemailer from 'nodemailer';
import { beforeAll, describe, expect, it } from 'vitest';
import { conversationsProjection } from '../../projections/conversations.ts';
import type { TestAccount } from '../support/accounts.ts';
import { serverWithDnsAndSmtp } from '../support/mail-suite.ts';
import { rebuildAndWait } from '../support/rebuild.ts';
import { eventually } from '../support/waits.ts';

const DOMAIN = 'inbound.acme.test';
// the senders' DNS: empty, so no domain here has SPF, DKIM or DMARC records (dmarc: none) — with the
// system's resolver the real example.com, which asks for p=reject, would refuse these test mails;
// `relay`, the relay our outbound email goes through: what the customer's mailbox provider gets
const { server, smtp: relay } = serverWithDnsAndSmtp({ INBOUND_SMTP_PORT: '0', INBOUND_SMTP_HOST: '127.0.0.1', INBOUND_EMAIL_DOMAIN: DOMAIN, EMAIL_FROM: 'support@acme.test' });
let a: TestAccount;
let b: TestAccount;

/** Mail from a customer's mail server to our MX. */
function mailToUs(message: Record<string, unknown>) {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.workers.inboundSmtp!.port, secure: false, ignoreTLS: true, tls: { rejectUnauthorized: false } });
  return transport.sendMail(message).finally(() => transport.close());
}

const replyAddress = (account: TestAccount) => `${account.accountId.toLowerCase()}@${DOMAIN}`;
const list = async (account: TestAccount, query = '') => (await server.call('GET', `/v1/conversations${query}`, { key: account.key })).body;
const threadOf = async (account: TestAccount, id: string) => (await server.call('GET', `/v1/conversations/${id}/messages`, { key: account.key })).body.data as any[];

beforeAll(async () => {
  [a, b] = await Promise.all([server.newAccount('Acme'), server.newAccount('Other')]);
});

describe('inbound email', () => {
  let conversationId: string;

  it("the account's reply address is in its inbound settings", async () => {
    const res = await server.call('GET', '/v1/account/inbound', { key: a.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ reply_address: replyAddress(a), webhook_url: null, help_text: null });
  });

  it('changing the inbound settings needs the settings capability; reading them does not', async () => {
    const issued = await server.call('POST', '/v1/account/api-keys', { key: a.key, body: { name: 'agents', scopes: ['read', 'write'] } });
    expect(issued.status).toBe(201);
    const agentKey = issued.body.key as string;
    const refused = await server.call('PUT', '/v1/account/inbound', { key: agentKey, body: { help_text: 'Hi' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'settings' });
    expect((await server.call('GET', '/v1/account/inbound', { key: agentKey })).body.help_text).toBeNull();
  });

  it('a mail to the reply address starts an email conversation with a new contact', async () => {
    await mailToUs({
      from: 'Jane Roe <Jane.Roe@Example.com>',
      to: replyAddress(a).toUpperCase(),
      subject: 'Question about my order',
      messageId: '<q1.abc@mail.example.com>',
      text: 'Where is my order 1234?',
      html: '<p>Where is my order <b>1234</b>?</p>',
    });
    const conversation = await eventually('the email conversation', async () => (await list(a, '?channel=email')).data[0]);
    conversationId = conversation.id;
    expect(conversation).toMatchObject({ channel: 'email', status: 'open', unread_count: 1 });
    const contact = (await server.call('GET', `/v1/contacts/${conversation.contact_id}`, { key: a.key })).body;
    expect(contact.email).toBe('jane.roe@example.com');
    const [entry] = await threadOf(a, conversationId);
    expect(entry).toMatchObject({
      direction: 'inbound', from: 'jane.roe@example.com', to: replyAddress(a), subject: 'Question about my order', body: 'Where is my order 1234?',
      html: '<p>Where is my order <b>1234</b>?</p>', email_message_id: 'q1.abc@mail.example.com', provider: 'smtp-inbound',
      authentication: { spf: 'none', dkim: 'none', dmarc: 'none', dmarc_policy: null },
    });
  });

  it('mail to any other address is refused at RCPT TO, and nothing is stored', async () => {
    for (const to of [`acct_01arz3ndektsv4rrffq69g5fav@${DOMAIN}`, `someone@${DOMAIN}`, `${a.accountId.toLowerCase()}@elsewhere.test`]) {
      await expect(mailToUs({ from: 'x@example.com', to, subject: 's', text: 't' })).rejects.toMatchObject({ responseCode: 550 });
    }
    await server.caughtUp(['conversations']);
    expect((await list(b)).data).toEqual([]);
    expect((await list(a)).data).toHaveLength(1);
  });

  it('the same mail delivered twice (a retry after a lost 250) is stored once', async () => {
    const again = { from: 'jane.roe@example.com', to: replyAddress(a), subject: 'Question about my order', messageId: '<q1.abc@mail.example.com>', text: 'Where is my order 1234?' };
    await mailToUs(again);
    await server.caughtUp(['conversations']);
    expect(await threadOf(a, conversationId)).toHaveLength(1);
  });

  it('a reply goes out in the email thread: Re: subject, In-Reply-To, References and the reply address as Reply-To', async () => {
    const res = await server.call('POST', `/v1/conversations/${conversationId}/reply`, { key: a.key, body: { message: 'It ships today.', htmlmessage: '<p>It ships today.</p>' } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ channel: 'email', to: 'jane.roe@example.com', conversation_id: conversationId, id: expect.stringMatching(/^msg_/) });
    const mail = await eventually('the reply at the relay', async () => relay.find(res.body.id)?.mail);
    expect(mail.subject).toBe('Re: Question about my order');
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.value[0].address : undefined).toBe('jane.roe@example.com');
    expect(mail.inReplyTo).toBe('<q1.abc@mail.example.com>');
    expect(mail.references).toBe('<q1.abc@mail.example.com>');
    expect(mail.replyTo?.value[0].address).toBe(replyAddress(a));
    expect(mail.text?.trim()).toBe('It ships today.');
    const thread = await threadOf(a, conversationId);
    expect(thread.map((e) => e.direction)).toEqual(['inbound', 'outbound']);
    expect(thread[1]).toMatchObject({ id: res.body.id, body: 'It ships today.', subject: 'Re: Question about my order', to: 'jane.roe@example.com' });
  });

  it("the customer's answer to our reply joins the same conversation, with its references", async () => {
    await mailToUs({
      from: 'jane.roe@example.com', to: replyAddress(a), subject: 'Re: Question about my order', messageId: '<q2.abc@mail.example.com>',
      inReplyTo: '<msg_reply@acme.test>', references: ['<q1.abc@mail.example.com>', '<msg_reply@acme.test>'], text: 'Thanks!',
    });
    const entry = await eventually('the answer', async () => (await threadOf(a, conversationId)).find((e) => e.body === 'Thanks!'));
    expect(entry).toMatchObject({ in_reply_to: 'msg_reply@acme.test', email_message_id: 'q2.abc@mail.example.com' });
    expect((await list(a, '?channel=email')).data).toHaveLength(1);
  });
});

describe('an email with an HTML body only', () => {
  it('is threaded with that body as text, and the HTML kept', async () => {
    await mailToUs({ from: 'html.only@example.com', to: replyAddress(b), subject: 'Styled', messageId: '<h1@example.com>', html: '<p>Hello <b>there</b></p><p>Second line</p>' });
    const conversation = await eventually('the conversation at b', async () => (await list(b)).data[0]);
    const [entry] = await threadOf(b, conversation.id);
    expect(entry.body).toBe('Hello there\n\nSecond line');
    // (as the message carries it: its MIME part ends with a line break)
    expect(entry.html).toBe('<p>Hello <b>there</b></p><p>Second line</p>\n');
  });
});

describe('the inbox', () => {
  let id: string;
  beforeAll(async () => {
    id = (await list(a, '?channel=email')).data[0].id;
  });

  it('a conversation is closed, assigned and read by PATCH, and the filters find it so', async () => {
    const res = await server.call('PATCH', `/v1/conversations/${id}`, { key: a.key, body: { status: 'closed', assignee: 'usr_agent_1', read: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'closed', assignee: 'usr_agent_1', read: true, unread_count: 0 });
    expect((await list(a, '?status=closed')).data.map((c: any) => c.id)).toEqual([id]);
    expect((await list(a, '?status=open')).data).toEqual([]);
    expect((await list(a, '?assignee=usr_agent_1&unread=false')).data.map((c: any) => c.id)).toEqual([id]);
    expect((await list(a, '?assignee=none')).data).toEqual([]);
    expect((await list(a, '?unread=true')).data).toEqual([]);
    // one conversation by its id: as the inbox lists it
    const one = await server.call('GET', `/v1/conversations/${id}`, { key: a.key });
    expect(one.status).toBe(200);
    expect(one.body).toEqual((await list(a, '?status=closed')).data[0]);
  });

  it('the contact writing again opens it again, unread', async () => {
    await mailToUs({ from: 'jane.roe@example.com', to: replyAddress(a), subject: 'One more thing', messageId: '<q3.abc@mail.example.com>', text: 'Also, gift wrap?' });
    const conversation = await eventually('reopened', async () => (await list(a, '?status=open')).data.find((c: any) => c.id === id));
    expect(conversation).toMatchObject({ read: false, unread_count: 1, assignee: 'usr_agent_1' });
  });

  it('pages newest activity first', async () => {
    await mailToUs({ from: 'sam@example.com', to: replyAddress(a), subject: 'Hi', messageId: '<s1@example.com>', text: 'Hello' });
    await eventually('two conversations', async () => ((await list(a)).data.length === 2 ? true : undefined));
    const first = await list(a, '?limit=1');
    expect(first.data).toHaveLength(1);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await list(a, `?limit=1&cursor=${first.next_cursor}`);
    expect(second.data).toHaveLength(1);
    expect(second.next_cursor).toBeNull();
    expect(Date.parse(first.data[0].last_message_at)).toBeGreaterThanOrEqual(Date.parse(second.data[0].last_message_at));
    expect(first.data[0].id).not.toBe(second.data[0].id);
  });

  it('bad input is a 400 naming the field; an unknown or foreign conversation a 404', async () => {
    const bad = async (method: string, path: string, body?: unknown) => {
      const res = await server.call(method, path, { key: a.key, body });
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.error).toBe('validation_error');
      return res.body;
    };
    expect((await bad('PATCH', `/v1/conversations/${id}`, {})).message).toMatch(/status, assignee or read/);
    expect((await bad('PATCH', `/v1/conversations/${id}`, { status: 'archived' })).issues[0].path).toBe('status');
    expect((await bad('PATCH', `/v1/conversations/${id}`, { read: true, colour: 'red' })).message).toMatch(/colour/);
    expect((await bad('POST', `/v1/conversations/${id}/reply`, {})).issues[0].path).toBe('message');
    expect((await bad('POST', `/v1/conversations/${id}/reply`, { message: 'x', webhook_url: 'http://10.0.0.1/hook' })).issues[0].path).toBe('webhook_url');
    await bad('GET', '/v1/conversations?channel=fax');
    await bad('GET', '/v1/conversations?unread=maybe');
    await bad('GET', '/v1/conversations?cursor=nonsense');
    await bad('PUT', '/v1/account/inbound', { webhook_url: 'ftp://example.com/x' });
    await bad('PUT', '/v1/account/inbound', { help_text: '' });
    for (const [method, path] of [['GET', `/v1/conversations/${id}`], ['PATCH', `/v1/conversations/${id}`], ['GET', `/v1/conversations/${id}/messages`], ['POST', `/v1/conversations/${id}/reply`]] as const) {
      const res = await server.call(method, path, { key: b.key, body: method === 'GET' ? undefined : method === 'PATCH' ? { read: true } : { message: 'x' } });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await server.call('GET', '/v1/conversations/conv_nope/messages', { key: a.key })).status).toBe(404);
    expect((await server.call('GET', '/v1/conversations/conv_nope', { key: a.key })).status).toBe(404);
  });

  it('a rebuild of the conversations read model replays the log into the same rows', async () => {
    const before = { list: (await list(a, '?limit=500')).data, thread: await threadOf(a, id) };
    await rebuildAndWait(server, conversationsProjection);
    expect((await list(a, '?limit=500')).data).toEqual(before.list);
    expect(await threadOf(a, id)).toEqual(before.thread);
  });

  it("erasing the contact erases its words in the thread, and a reply to nobody is refused", async () => {
    const res = await server.call('POST', '/v1/account/erasures', { key: a.key, body: { email: 'jane.roe@example.com' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await server.caughtUp(['conversations']);
    const inbound = (await threadOf(a, id)).filter((e) => e.direction === 'inbound');
    expect(inbound.length).toBe(3);
    for (const e of inbound) {
      expect(e.from).toBe('[erased]');
      expect(e.body).toBe('[erased]');
      expect(e.subject).toBe('[erased]');
      expect(e.html).toBeUndefined();
    }
    const reply = await server.call('POST', `/v1/conversations/${id}/reply`, { key: a.key, body: { message: 'hello?' } });
    expect(reply.status).toBe(409);
  });
});
