// The SMTP provider against a real local SMTP server (smtp-server on 127.0.0.1): the MIME it writes,
// DKIM signatures verified cryptographically (mailauth), and how SMTP replies become outcomes.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboundMessage } from '../../src/channels/port.ts';
import { dkimKeysFromConfig, redactSmtpUrl, SmtpProvider } from '../../src/channels/smtp.ts';
import { parseDkimKeys } from '../../src/dkim-keys.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { until } from '../support/waits.ts';

// ---------------------------------------------------------------------------------------------
// a local SMTP server that records what it receives and answers by recipient local part

interface Received {
  from: string;
  to: string[];
  raw: Buffer;
  user?: string;
}

interface LocalSmtp {
  port: number;
  url: string;
  received: Received[];
  /** RCPT TO attempts per recipient address */
  rcptAttempts: Map<string, number>;
  sessions: { opened: number; closed: number };
  close(): Promise<void>;
}

type SmtpError = Error & { responseCode?: number };
const smtpError = (code: number, text: string): SmtpError => Object.assign(new Error(text), { responseCode: code });

async function startSmtp(extra: Partial<SMTPServerOptions> & { dataReply?: string } = {}): Promise<LocalSmtp> {
  const received: Received[] = [];
  const rcptAttempts = new Map<string, number>();
  const sessions = { opened: 0, closed: 0 };
  const { dataReply, ...options } = extra;
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    // no reverse DNS of 127.0.0.1: a sandbox without DNS makes every connection wait for it
    disableReverseLookup: true,
    logger: false,
    onConnect(_session, cb) {
      sessions.opened++;
      cb();
    },
    onClose() {
      sessions.closed++;
    },
    onRcptTo(address, _session, cb) {
      const to = address.address.toLowerCase();
      const n = (rcptAttempts.get(to) ?? 0) + 1;
      rcptAttempts.set(to, n);
      const local = to.split('@')[0];
      if (local === 'reject') return cb(smtpError(550, '5.1.1 <reject@example.test>: Recipient address rejected: User unknown'));
      if (local === 'down') return cb(smtpError(451, '4.3.0 Temporary local problem, try again later'));
      if (local === 'greylist' && n <= 2) return cb(smtpError(451, '4.7.1 Greylisted, please try again later'));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          ...(session.user ? { user: String(session.user) } : {}),
        });
        cb(null, dataReply);
      });
    },
    ...options,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    rcptAttempts,
    sessions,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function rsaKeys(): { privateKey: string; publicKey: KeyObject; dnsValue: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const spki = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  return { privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey, dnsValue: `v=DKIM1; k=rsa; p=${spki}` };
}

/** A DNS resolver for mailauth that knows exactly one DKIM key record. */
function resolverWith(name: string, txt: string) {
  return async (domain: string, type: string) => {
    if (type === 'TXT' && domain.toLowerCase() === name) return [[txt]];
    throw Object.assign(new Error(`no ${type} record for ${domain}`), { code: 'ENOTFOUND' });
  };
}

const headerLine = (mail: ParsedMail, name: string) => mail.headerLines.find((h) => h.key === name)?.line;
const DOMAIN = 'mail.example.test';
const SELECTOR = 's2026';

// ---------------------------------------------------------------------------------------------

describe('email over SMTP through the API', () => {
  let smtp: LocalSmtp;
  let server: TestServer;
  let key: string;
  const dkim = rsaKeys();

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer({
      SMTP_URL: smtp.url,
      EMAIL_FROM: `no-reply@${DOMAIN}`,
      DKIM_KEYS: JSON.stringify({ [DOMAIN]: { selector: SELECTOR, privateKey: dkim.privateKey } }),
      DISPATCH_RETRY_BASE_MS: '50',
      DISPATCH_MAX_ATTEMPTS: '3',
    });
    ({ key } = await server.newAccount());
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  const send = async (body: Record<string, unknown>) => {
    const res = await server.call('POST', '/v1/messages/send', { key, body: { channel: 'email', transactional: true, ...body } });
    expect(res.status).toBe(202);
    return res.body.id as string;
  };
  const get = (id: string) => server.call('GET', `/v1/messages/${id}`, { key });
  const timeline = async (id: string) => (await server.call('GET', `/v1/messages/${id}/timeline`, { key })).body.events as { type: string; reason: string | null; details: Record<string, any> }[];
  const receivedFor = (id: string) => until(() => smtp.received.filter((r) => new RegExp(`^X-Engage-Message-Id: ${id}\\r?$`, 'im').test(r.raw.toString('latin1'))), (l) => l.length > 0);

  it('sends multipart/alternative with subject, Reply-To, display name, custom header, Message-ID and a valid DKIM signature', async () => {
    const id = await send({
      to: 'Reader@Example.test',
      message: 'Hello in plain text',
      htmlmessage: '<p>Hello in <b>HTML</b></p>',
      subject: 'Fall sale',
      reply_to: 'support@example.test',
      from_name: 'Acme Store',
      headers: { 'X-Campaign': 'fall' },
    });
    const done = await until(() => get(id), (r) => r.body.status !== 'queued');
    expect(done.body).toMatchObject({ status: 'sent', provider: 'smtp', provider_message_id: `${id}@${DOMAIN}` });

    const [got] = await receivedFor(id);
    expect(got.to).toEqual(['reader@example.test']);
    expect(got.from).toBe(`no-reply@${DOMAIN}`);
    const mail = await simpleParser(got.raw);
    // the top-level structure: one multipart/alternative holding a text/plain and a text/html part
    expect((mail.headers.get('content-type') as { value: string }).value).toBe('multipart/alternative');
    const raw = got.raw.toString('latin1');
    expect(raw).toMatch(/Content-Type: text\/plain/);
    expect(raw).toMatch(/Content-Type: text\/html/);
    expect(mail.text?.trim()).toBe('Hello in plain text');
    expect(mail.html).toContain('<p>Hello in <b>HTML</b></p>');
    expect(mail.subject).toBe('Fall sale');
    expect(mail.replyTo?.value[0].address).toBe('support@example.test');
    expect(mail.from?.value[0]).toMatchObject({ name: 'Acme Store', address: `no-reply@${DOMAIN}` });
    expect(mail.headers.get('x-campaign')).toBe('fall');
    expect(mail.headers.get('x-engage-message-id')).toBe(id);
    expect(mail.messageId).toBe(`<${id}@${DOMAIN}>`);

    const sig = headerLine(mail, 'dkim-signature');
    expect(sig).toBeDefined();
    expect(sig!.replace(/\s+/g, '')).toContain(`d=${DOMAIN};`);
    expect(sig!.replace(/\s+/g, '')).toContain(`s=${SELECTOR};`);

    // cryptographic check with the public half, published under <selector>._domainkey.<domain>
    const verified = await dkimVerify(got.raw, { resolver: resolverWith(`${SELECTOR}._domainkey.${DOMAIN}`, dkim.dnsValue) });
    expect(verified.results).toHaveLength(1);
    expect(verified.results[0]).toMatchObject({ signingDomain: DOMAIN, selector: SELECTOR, algo: 'rsa-sha256', format: 'relaxed/relaxed' });
    expect(verified.results[0].status.result).toBe('pass');
    // the signature covers what matters: tampering with the subject breaks it
    const tampered = Buffer.from(raw.replace('Subject: Fall sale', 'Subject: Fall SALE'), 'latin1');
    const broken = await dkimVerify(tampered, { resolver: resolverWith(`${SELECTOR}._domainkey.${DOMAIN}`, dkim.dnsValue) });
    expect(broken.results[0].status.result).toBe('fail');
    // and another key pair's public key does not verify it
    const other = rsaKeys();
    const wrongKey = await dkimVerify(got.raw, { resolver: resolverWith(`${SELECTOR}._domainkey.${DOMAIN}`, other.dnsValue) });
    expect(wrongKey.results[0].status.result).toBe('fail');

    // SMTP has no delivery report: the message stays sent (until bounce/complaint feedback arrives
    // through /v1/webhooks/smtp). A later message reaching `sent` shows the workers moved on meanwhile.
    const later = await send({ to: 'someone@example.test', message: 'later' });
    await until(() => get(later), (r) => r.body.status === 'sent');
    const still = await get(id);
    expect(still.body.status).toBe('sent');
    expect((await timeline(id)).map((e) => e.type)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageSent']);
  });

  it('sends text only without htmlmessage, from the sender address when it is one, unsigned for a domain without a key', async () => {
    const id = await send({ to: 'plain@example.test', message: 'Just text', subject: 'Plain', sender: 'news@other.test' });
    const done = await until(() => get(id), (r) => r.body.status !== 'queued');
    expect(done.body).toMatchObject({ status: 'sent', provider_message_id: `${id}@other.test` });
    const [got] = await receivedFor(id);
    const mail = await simpleParser(got.raw);
    expect((mail.headers.get('content-type') as { value: string }).value).toBe('text/plain');
    expect(got.raw.toString('latin1')).not.toMatch(/text\/html/i);
    expect(mail.text?.trim()).toBe('Just text');
    expect(mail.from?.value[0]).toMatchObject({ address: 'news@other.test' });
    expect(mail.from?.value[0].name).toBe('');
    expect(mail.messageId).toBe(`<${id}@other.test>`);
    expect(headerLine(mail, 'dkim-signature')).toBeUndefined();
    expect(headerLine(mail, 'reply-to')).toBeUndefined();
  });

  it('does not lend an operator key (DKIM_KEYS) to a sender address on its domain: only the default From is signed with it', async () => {
    const id = await send({ to: 'borrow@example.test', message: 'x', sender: `ceo@${DOMAIN}` });
    await until(() => get(id), (r) => r.body.status === 'sent');
    const [got] = await receivedFor(id);
    const mail = await simpleParser(got.raw);
    expect(mail.from?.value[0]).toMatchObject({ address: `ceo@${DOMAIN}` });
    expect(headerLine(mail, 'dkim-signature')).toBeUndefined();
  });

  it('uses EMAIL_FROM when the sender is a name rather than an address', async () => {
    const id = await send({ to: 'named@example.test', message: 'x', sender: 'ACME', from_name: 'Acme' });
    await until(() => get(id), (r) => r.body.status === 'sent');
    const [got] = await receivedFor(id);
    const mail = await simpleParser(got.raw);
    expect(mail.from?.value[0]).toMatchObject({ name: 'Acme', address: `no-reply@${DOMAIN}` });
    expect(headerLine(mail, 'dkim-signature')).toBeDefined();
  });

  it('fails a message the server refuses with 550, with the SMTP reply as reason', async () => {
    const id = await send({ to: 'reject@example.test', message: 'x', subject: 's' });
    const done = await until(() => get(id), (r) => r.body.status !== 'queued');
    expect(done.body.status).toBe('failed');
    expect(done.body.reason).toContain('550');
    expect(done.body.reason).toContain('Recipient address rejected');
    expect(done.body.attempts).toBe(1);
    const failed = (await timeline(id)).find((e) => e.type === 'MessageFailed')!;
    expect(failed.details).toMatchObject({ stage: 'provider', provider: 'smtp', provider_data: { code: '550' } });
    expect(smtp.rcptAttempts.get('reject@example.test')).toBe(1);
  });

  it('retries a 451 (greylisting) and sends the message once it is accepted', async () => {
    const id = await send({ to: 'greylist@example.test', message: 'x', subject: 's' });
    const done = await until(() => get(id), (r) => r.body.status !== 'queued');
    expect(done.body.status).toBe('sent');
    expect(done.body.attempts).toBe(3);
    const events = await timeline(id);
    const deferred = events.filter((e) => e.type === 'MessageDispatchDeferred');
    expect(deferred).toHaveLength(2);
    expect(deferred[0].reason).toContain('451');
    expect(events.filter((e) => e.type === 'MessageDispatching')).toHaveLength(3);
    expect(smtp.rcptAttempts.get('greylist@example.test')).toBe(3);
    expect(await receivedFor(id)).toHaveLength(1);
  });

  it('keeps a message queued while the server answers 4xx, then fails it as provider_unavailable after the last attempt', async () => {
    const id = await send({ to: 'down@example.test', message: 'x', subject: 's' });
    const done = await until(() => get(id), (r) => r.body.status !== 'queued');
    expect(done.body.status).toBe('failed');
    expect(done.body.reason).toMatch(/^provider_unavailable: .*451/);
    expect(done.body.attempts).toBe(3);
    expect(smtp.rcptAttempts.get('down@example.test')).toBe(3);
    // between attempts the message was deferred, not failed: a deferral leaves it queued for the next claim
    const events = await timeline(id);
    expect(events.map((e) => e.type)).toEqual([
      'MessageAccepted', 'MessageDispatching', 'MessageDispatchDeferred', 'MessageDispatching', 'MessageDispatchDeferred', 'MessageDispatching', 'MessageFailed',
    ]);
    for (const e of events.filter((x) => x.type === 'MessageDispatchDeferred')) {
      expect(e.reason).toMatch(/^smtp: .*451/);
      expect(e.details.retry_at).toEqual(expect.any(String));
    }
    expect(events.at(-1)!.details).toMatchObject({ stage: 'provider', provider: 'smtp' });
  });
});

// ---------------------------------------------------------------------------------------------

describe('SmtpProvider', () => {
  const outbound = (over: Partial<OutboundMessage> = {}): OutboundMessage => ({
    id: `msg_TEST${Math.random().toString(36).slice(2, 10).toUpperCase()}`,
    accountId: 'acct_x',
    channel: 'email',
    to: 'r@example.test',
    message: 'body',
    subject: 'Subject here',
    ...over,
  });

  it('drops reserved and malformed custom headers and keeps its own X-Engage-Message-Id', async () => {
    const smtp = await startSmtp();
    const provider = new SmtpProvider({ url: smtp.url, defaultFrom: 'Engage <bot@example.test>' });
    try {
      const m = outbound({
        headers: {
          Bcc: 'hidden@example.test',
          subject: 'overridden',
          'Message-ID': '<spoof@evil.test>',
          'X-Engage-Message-Id': 'msg_spoof',
          'X-Ok': 'yes',
          'Bad Name': 'v',
          'X-Inject': 'a\r\nBcc: injected@example.test',
        },
      });
      const outcome = await provider.send(m);
      expect(outcome).toEqual({ kind: 'accepted', providerMessageId: `${m.id}@example.test` });
      expect(smtp.received).toHaveLength(1);
      const got = smtp.received[0];
      expect(got.to).toEqual(['r@example.test']);
      const mail = await simpleParser(got.raw);
      expect(mail.subject).toBe('Subject here');
      expect(mail.messageId).toBe(`<${m.id}@example.test>`);
      expect(mail.headers.get('x-engage-message-id')).toBe(m.id);
      expect(mail.headers.get('x-ok')).toBe('yes');
      expect(mail.headers.has('bcc')).toBe(false);
      expect(mail.headers.has('x-inject')).toBe(false);
      expect(got.raw.toString('latin1')).not.toMatch(/hidden@|injected@|spoof/);
      // the display name of EMAIL_FROM is used when the message has no from_name
      expect(mail.from?.value[0]).toMatchObject({ name: 'Engage', address: 'bot@example.test' });
    } finally {
      await provider.close();
      await smtp.close();
    }
  });

  it('reports the Message-ID the server says it gave the message (Microsoft 365 reply format)', async () => {
    const smtp = await startSmtp({ dataReply: '2.0.0 OK <AM0PR01MB1234.5678@AM0PR01MB1234.eurprd01.prod.outlook.com> [Hostname=AM0PR01MB1234]' });
    const provider = new SmtpProvider({ url: smtp.url, defaultFrom: 'bot@example.test' });
    try {
      const outcome = await provider.send(outbound());
      expect(outcome).toEqual({ kind: 'accepted', providerMessageId: 'AM0PR01MB1234.5678@AM0PR01MB1234.eurprd01.prod.outlook.com' });
    } finally {
      await provider.close();
      await smtp.close();
    }
  });

  it('is transient when the server cannot be reached', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const provider = new SmtpProvider({ url: `smtp://127.0.0.1:${port}`, defaultFrom: 'bot@example.test', timeoutMs: 2000 });
    try {
      const outcome = await provider.send(outbound());
      expect(outcome.kind).toBe('transient');
      expect(outcome.kind === 'transient' && outcome.error).toMatch(/ECONNECTION|ESOCKET|ECONNREFUSED/);
    } finally {
      await provider.close();
    }
  });

  it('logs in with the URL credentials, treats a refused login as transient, and never shows the password', async () => {
    const smtp = await startSmtp({
      authOptional: false,
      onAuth(auth, _session, cb) {
        if (auth.username === 'app' && auth.password === 's3cret-pass') return cb(null, { user: 'app' });
        cb(smtpError(535, '5.7.8 Authentication credentials invalid'));
      },
    });
    const good = new SmtpProvider({ url: `smtp://app:s3cret-pass@127.0.0.1:${smtp.port}`, defaultFrom: 'bot@example.test' });
    const bad = new SmtpProvider({ url: `smtp://app:wrong-pass@127.0.0.1:${smtp.port}`, defaultFrom: 'bot@example.test' });
    try {
      expect(await good.send(outbound())).toMatchObject({ kind: 'accepted' });
      expect(smtp.received[0].user).toBe('app');
      const refused = await bad.send(outbound());
      expect(refused.kind).toBe('transient');
      expect(JSON.stringify(refused)).not.toContain('wrong-pass');
      expect(good.target).not.toContain('s3cret-pass');
      expect(good.target).toContain(`127.0.0.1:${smtp.port}`);
      expect(redactSmtpUrl('smtps://user:p%40ss@smtp.example.test:465')).toBe('smtps://***@smtp.example.test:465');
    } finally {
      await good.close();
      await bad.close();
      await smtp.close();
    }
  });

  it('pools at most maxConnections connections and closes them on close()', async () => {
    const smtp = await startSmtp();
    const provider = new SmtpProvider({ url: smtp.url, defaultFrom: 'bot@example.test', maxConnections: 2 });
    try {
      const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => provider.send(outbound({ to: `p${i}@example.test` }))));
      expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
      expect(smtp.received).toHaveLength(12);
      expect(smtp.sessions.opened).toBeGreaterThanOrEqual(1);
      expect(smtp.sessions.opened).toBeLessThanOrEqual(2);
      await provider.close();
      const closed = await until(() => smtp.sessions.closed, (n) => n === smtp.sessions.opened, 5000);
      expect(closed).toBe(smtp.sessions.opened);
    } finally {
      await provider.close();
      await smtp.close();
    }
  });
});

describe('DKIM_KEYS', () => {
  const { privateKey } = rsaKeys();

  it('reads inline JSON and a file path, matching domains case-insensitively', () => {
    const inline = dkimKeysFromConfig(JSON.stringify({ 'Example.TEST': { selector: 'a1', privateKey } }));
    expect(inline('example.test')).toEqual({ selector: 'a1', privateKey });
    expect(inline('news.example.test')).toBeUndefined();
    const dir = mkdtempSync(join(tmpdir(), 'engage-dkim-'));
    try {
      const file = join(dir, 'keys.json');
      writeFileSync(file, JSON.stringify({ 'b.test': { selector: 'b1', privateKey } }));
      expect(dkimKeysFromConfig(file)('b.test')?.selector).toBe('b1');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(parseDkimKeys(undefined).size).toBe(0);
  });

  it('refuses bad configuration without quoting key material', () => {
    const secretish = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC';
    expect(() => parseDkimKeys(`{"a.test": {"selector": "s", "privateKey": "${secretish}"`)).toThrow(/not valid JSON/);
    try {
      parseDkimKeys(`{"a.test": {"selector": "s", "privateKey": "${secretish}"`);
    } catch (err) {
      expect((err as Error).message).not.toContain(secretish);
    }
    expect(() => parseDkimKeys(JSON.stringify({ 'a.test': { selector: 's', privateKey: secretish } }))).toThrow(/a\.test is not a PEM private key/);
    expect(() => parseDkimKeys(JSON.stringify({ 'a.test': { privateKey } }))).toThrow(/selector/);
    expect(() => parseDkimKeys('/nonexistent/dkim.json')).toThrow(/cannot read the key file/);
  });
});
