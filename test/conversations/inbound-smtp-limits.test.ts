// The inbound SMTP listener's limits (issue 25, findings 5 and 17): a message larger than
// INBOUND_SMTP_MAX_BYTES is refused at MAIL FROM when its size is declared and with 552 at the end of
// DATA when it is not — without the listener keeping what is over the limit — and one address holds
// at most INBOUND_SMTP_MAX_CONNECTIONS_PER_IP connections. Spoken over a raw socket: what a client
// sends is exactly what the test says.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { TestAccount } from '../support/accounts.ts';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { eventually, until } from '../support/waits.ts';

const DOMAIN = 'inbound.acme.test';
const MAX_BYTES = 1024 * 1024;
const PER_IP = 3;
/** the undeclared oversized message: 8 times the limit */
const BODY_BYTES = 8 * 1024 * 1024;
let server: TestServer;
let dns: TestDnsServer;
let a: TestAccount;

beforeAll(async () => {
  dns = await startDnsServer();
  server = await startTestServer({
    INBOUND_SMTP_PORT: '0', INBOUND_SMTP_HOST: '127.0.0.1', INBOUND_EMAIL_DOMAIN: DOMAIN, DNS_SERVERS: dns.address,
    INBOUND_SMTP_MAX_BYTES: String(MAX_BYTES), INBOUND_SMTP_MAX_CONNECTIONS_PER_IP: String(PER_IP),
  });
  a = await server.newAccount('Acme');
});

afterAll(async () => {
  await server?.close();
  await dns?.close();
});

const replyAddress = () => `${a.accountId.toLowerCase()}@${DOMAIN}`;

/** One SMTP client connection: replies are read whole (multi-line ones joined), commands written as lines. */
interface SmtpClient {
  /** the next reply: its code and text (every line) */
  reply(): Promise<{ code: number; text: string }>;
  send(line: string): Promise<{ code: number; text: string }>;
  socket: net.Socket;
  /** resolves once the server has closed the connection */
  closed: Promise<void>;
  close(): void;
}

function connect(port: number): Promise<SmtpClient> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let buffered = '';
    const replies: { code: number; text: string }[] = [];
    const waiting: ((r: { code: number; text: string }) => void)[] = [];
    let lines: string[] = [];
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let at: number;
      while ((at = buffered.indexOf('\r\n')) >= 0) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 2);
        lines.push(line);
        if (line[3] === '-') continue;
        const r = { code: Number(line.slice(0, 3)), text: lines.join('\n') };
        lines = [];
        const w = waiting.shift();
        if (w) w(r);
        else replies.push(r);
      }
    });
    socket.once('error', reject);
    const reply = () => {
      const ready = replies.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise<{ code: number; text: string }>((r, fail) => {
        const timer = setTimeout(() => fail(new Error('no SMTP reply within 30 s')), 30_000);
        waiting.push((v) => {
          clearTimeout(timer);
          r(v);
        });
      });
    };
    socket.once('connect', () =>
      resolve({
        reply,
        send: (line) => {
          socket.write(`${line}\r\n`);
          return reply();
        },
        socket,
        closed,
        close: () => socket.destroy(),
      }),
    );
  });
}

const port = () => server.workers.inboundSmtp!.port;

/** Writes `bytes` of message body as 76-character lines, waiting for the socket to drain (what a sender's MTA does). */
async function streamBody(socket: net.Socket, bytes: number): Promise<void> {
  const line = `${'x'.repeat(76)}\r\n`;
  const chunk = Buffer.from(line.repeat(Math.floor((64 * 1024) / line.length)));
  for (let sent = 0; sent < bytes; sent += chunk.length) {
    if (!socket.write(chunk)) await new Promise<void>((r) => socket.once('drain', () => r()));
  }
}

describe('message size', () => {
  it('the limit is advertised (SIZE) and a larger declared size is refused at MAIL FROM with 552', async () => {
    const c = await connect(port());
    expect((await c.reply()).code).toBe(220);
    const ehlo = await c.send('EHLO client.example.com');
    expect(ehlo.code).toBe(250);
    expect(ehlo.text).toContain(`SIZE ${MAX_BYTES}`);
    const refused = await c.send(`MAIL FROM:<big@example.com> SIZE=${MAX_BYTES + 1}`);
    expect(refused.code).toBe(552);
    expect((await c.send(`MAIL FROM:<small@example.com> SIZE=${MAX_BYTES}`)).code).toBe(250);
    await c.send('QUIT');
    c.close();
  });

  it('an undeclared oversized DATA is refused with 552 without being kept; nothing is stored and the session goes on', async () => {
    const c = await connect(port());
    // closed whatever happens: a connection left open counts against the next test's per-address limit
    try {
      expect((await c.reply()).code).toBe(220);
      expect((await c.send('EHLO client.example.com')).code).toBe(250);
      expect((await c.send('MAIL FROM:<big@example.com>')).code).toBe(250);
      expect((await c.send(`RCPT TO:<${replyAddress()}>`)).code).toBe(250);
      expect((await c.send('DATA')).code).toBe(354);
      c.socket.write(`From: big@example.com\r\nTo: ${replyAddress()}\r\nSubject: huge\r\nMessage-ID: <huge@example.com>\r\n\r\n`);
      // what the listener holds of the message: at most the limit and one read, never the message.
      // (The process's live memory told keeping from discarding only by luck: while 32 MiB streamed
      // through this one process, socket and stream buffers alone moved it by 17 to 31 MiB.)
      await streamBody(c.socket, BODY_BYTES);
      const answer = await c.send('.');
      expect(answer.code, answer.text).toBe(552);
      const held = server.workers.inboundSmtp!.peakHeldBytes();
      expect(held, 'bytes of the message the listener held at once').toBeLessThanOrEqual(MAX_BYTES + 256 * 1024);
      expect(held, 'the listener read the message').toBeGreaterThan(0);

      // the same session still takes a message of an allowed size
      expect((await c.send('MAIL FROM:<small@example.com>')).code).toBe(250);
      expect((await c.send(`RCPT TO:<${replyAddress()}>`)).code).toBe(250);
      expect((await c.send('DATA')).code).toBe(354);
      c.socket.write(`From: small@example.com\r\nTo: ${replyAddress()}\r\nSubject: small\r\nMessage-ID: <small@example.com>\r\n\r\nfits\r\n`);
      expect((await c.send('.')).code).toBe(250);
      await c.send('QUIT');
    } finally {
      c.close();
    }

    const conversations = await eventually('the small message threaded', async () => {
      const list = (await server.call('GET', '/v1/conversations?channel=email', { key: a.key })).body.data as any[];
      return list.length ? list : undefined;
    });
    await server.caughtUp(['conversations']);
    const subjects: string[] = [];
    for (const conv of (await server.call('GET', '/v1/conversations?channel=email', { key: a.key })).body.data as any[]) {
      for (const e of (await server.call('GET', `/v1/conversations/${conv.id}/messages`, { key: a.key })).body.data as any[]) subjects.push(e.subject);
    }
    expect(conversations).toHaveLength(1);
    expect(subjects).toEqual(['small']);
  });
});

describe('connections per address', () => {
  it(`the connection over INBOUND_SMTP_MAX_CONNECTIONS_PER_IP (${PER_IP}) from one address is refused with 421; one closing frees its place`, async () => {
    const open: SmtpClient[] = [];
    try {
      for (let i = 0; i < PER_IP; i++) {
        const c = await connect(port());
        expect((await c.reply()).code).toBe(220);
        open.push(c);
      }
      const extra = await connect(port());
      const refused = await extra.reply();
      expect(refused.code, refused.text).toBe(421);
      await extra.closed;

      await open.shift()!.send('QUIT');
      // the server's side of the closed connection goes away a moment later
      const next = await until(
        async () => {
          const c = await connect(port());
          const r = await c.reply();
          if (r.code !== 220) c.close();
          return { c, r };
        },
        ({ r }) => r.code === 220,
        10_000,
      );
      expect(next.r.code).toBe(220);
      open.push(next.c);
    } finally {
      for (const c of open) c.close();
    }
  });
});

describe('defaults', () => {
  it('the listener listens on 127.0.0.1 and allows 10 connections per address unless configured', () => {
    const config = loadConfig({});
    expect(config.INBOUND_SMTP_HOST).toBe('127.0.0.1');
    expect(config.INBOUND_SMTP_MAX_CONNECTIONS_PER_IP).toBe(10);
  });
});
