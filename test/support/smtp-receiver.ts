// A real SMTP server on 127.0.0.1 (smtp-server) that accepts every message and keeps it as received,
// parsed (mailparser): what a mailbox provider would see of our email.
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  raw: Buffer;
  mail: ParsedMail;
}

export interface SmtpReceiver {
  url: string;
  received: ReceivedMail[];
  /** the mail whose X-Engage-Message-Id is `messageId`, if it has arrived */
  find(messageId: string): ReceivedMail | undefined;
  close(): Promise<void>;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    // no reverse DNS of 127.0.0.1: a sandbox without DNS makes every connection wait for it
    disableReverseLookup: true,
    logger: false,
    onData(stream, _session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (mail) => {
            received.push({ raw, mail });
            cb();
          },
          (err: Error) => cb(err),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    find: (messageId) => received.find((r) => r.mail.headers.get('x-engage-message-id') === messageId),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
