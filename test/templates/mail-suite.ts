// What the templates' sending tests share: one engage server for the file whose email goes to a real
// SMTP server on 127.0.0.1 (what a mailbox provider would receive), and a request that must answer
// the status given.
import { afterAll, beforeAll, expect } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../support/smtp-receiver.ts';

export interface MailSuite {
  smtp: SmtpReceiver;
  server: TestServer;
  /** a request with `key` that must answer `status` (200 unless given); its body */
  ok(key: string, method: string, path: string, body?: unknown, status?: number): Promise<any>;
}

/** Starts the server and the SMTP receiver before the file's tests and stops them after. */
export function mailSuite(): MailSuite {
  const suite = {} as MailSuite;
  beforeAll(async () => {
    suite.smtp = await startSmtpReceiver();
    suite.server = await startTestServer({ SMTP_URL: suite.smtp.url, EMAIL_FROM: 'news@mail.example.test' });
  }, 120_000);
  afterAll(async () => {
    await suite.server?.close();
    await suite.smtp?.close();
  });
  suite.ok = async (key, method, path, body, status = 200) => {
    const res = await suite.server.call(method, path, { key, body });
    expect(res.status, `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBe(status);
    return res.body;
  };
  return suite;
}
