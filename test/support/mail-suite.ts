// A test server with a DNS server and an SMTP receiver of its own on loopback, for a file or describe
// block: the server resolves names through the DNS server (DNS_SERVERS) and relays its email to the
// receiver (SMTP_URL), so a test can publish records and read the mail that went out.
import { afterAll, beforeAll } from 'vitest';
import type { Clock } from '../../src/clock.ts';
import { startDnsServer, type TestDnsServer } from './dns-server.ts';
import { startTestServer, type TestServer, whileRunning } from './harness.ts';
import { startSmtpReceiver, type SmtpReceiver } from './smtp-receiver.ts';

/**
 * All three started before the suite's tests (before the hooks registered after this call) and
 * closed after them; email goes out from no-reply@platform.test unless `overrides` say otherwise.
 * `clock`: the time the server lives in.
 */
export function serverWithDnsAndSmtp(overrides: Record<string, string> = {}, clock?: Clock): { server: TestServer; dns: TestDnsServer; smtp: SmtpReceiver } {
  let dns: TestDnsServer | undefined;
  let smtp: SmtpReceiver | undefined;
  let server: TestServer | undefined;
  beforeAll(async () => {
    dns = await startDnsServer();
    smtp = await startSmtpReceiver();
    server = await startTestServer({ DNS_SERVERS: dns.address, SMTP_URL: smtp.url, EMAIL_FROM: 'no-reply@platform.test', ...overrides }, undefined, clock);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
    await dns?.close();
  });
  return { server: whileRunning(() => server, 'the test server'), dns: whileRunning(() => dns, 'the DNS server'), smtp: whileRunning(() => smtp, 'the SMTP receiver') };
}
