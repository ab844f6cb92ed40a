// The inbound SMTP listener (smtp-server): the MX of INBOUND_EMAIL_DOMAIN. It takes mail for the
// accounts' reply addresses only (any other recipient is refused at RCPT TO), parses each message
// (mailparser) and threads it into the sender's email conversation. The 250 after DATA is given
// once every recipient's copy is stored; anything else is a 451, so the sending server tries again
// and nothing it handed over is lost.
import type { AddressInfo } from 'node:net';
import { type AddressObject, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import type { Engage } from '../context.ts';
import { accountOfReplyAddress } from './routing.ts';
import { receiveInbound } from './service.ts';

export interface InboundSmtp {
  port: number;
  close(): Promise<void>;
}

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

/** A Message-ID without its angle brackets. */
const bare = (id: string) => id.trim().replace(/^<(.*)>$/, '$1');
const idsOf = (v: string | string[] | undefined) => (v === undefined ? [] : (Array.isArray(v) ? v : v.split(/\s+/)).map(bare).filter((id) => id.length > 0 && id.length <= 998));
const firstAddress = (a: AddressObject | AddressObject[] | undefined) => (Array.isArray(a) ? a[0] : a)?.value.find((v) => v.address)?.address;

export async function startInboundSmtp(engage: Engage, port: number, host: string): Promise<InboundSmtp> {
  const log = engage.log.child({ component: 'inbound-smtp' });
  // the account each accepted recipient of a connection's session names (found at RCPT TO)
  const accountsOfRecipients = new WeakMap<SMTPServerSession, Map<string, string>>();
  const server = new SMTPServer({
    name: engage.config.INBOUND_EMAIL_DOMAIN,
    banner: 'engage inbound mail',
    // an MX takes mail from anyone without authentication; TLS needs a certificate, configured in front
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    size: engage.config.INBOUND_SMTP_MAX_BYTES,
    // an MX open to the internet: bounded connections, so a flood cannot take the process down
    maxClients: 200,
    logger: false,
    onRcptTo(address, session, cb) {
      accountOfReplyAddress(engage, address.address).then(
        (accountId) => {
          if (!accountId) return cb(smtpError(550, '5.1.1 no such mailbox here'));
          // remembered for DATA, which then needs no second look-up
          const known = accountsOfRecipients.get(session) ?? new Map<string, string>();
          accountsOfRecipients.set(session, known.set(address.address, accountId));
          cb();
        },
        (err: unknown) => {
          log.error({ err }, 'looking up an inbound recipient failed');
          cb(smtpError(451, '4.3.0 temporary failure, try again later'));
        },
      );
    },
    onData(stream, session, cb) {
      const rcpts = session.envelope.rcptTo.map((r) => r.address);
      simpleParser(stream)
        .then(async (mail) => {
          if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) throw smtpError(552, '5.3.4 message too big');
          const from = firstAddress(mail.from) ?? (session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined);
          if (!from) throw smtpError(550, '5.1.7 the message has no sender address');
          const html = typeof mail.html === 'string' ? mail.html : undefined;
          const messageId = mail.messageId ? bare(mail.messageId) : undefined;
          const accounts = new Set<string>();
          for (const rcpt of rcpts) {
            const accountId = accountsOfRecipients.get(session)?.get(rcpt);
            if (!accountId || accounts.has(accountId)) continue;
            accounts.add(accountId);
            const metadata = { actor: 'provider:smtp-inbound', requestId: messageId ?? 'smtp', correlationId: messageId ?? 'smtp', causationId: messageId ?? 'smtp', accountId };
            await receiveInbound(engage, accountId, {
              channel: 'email',
              from,
              to: rcpt.toLowerCase(),
              // (mailparser converts an HTML-only message's body to text itself)
              body: mail.text?.trim() ?? '',
              subject: mail.subject ?? '',
              ...(html !== undefined ? { html } : {}),
              ...(messageId ? { emailMessageId: messageId } : {}),
              ...(mail.inReplyTo ? { inReplyTo: bare(mail.inReplyTo) } : {}),
              references: idsOf(mail.references),
              provider: 'smtp-inbound',
              ...(messageId ? { providerMessageId: messageId } : {}),
              receivedAt: engage.clock.now(),
            }, metadata);
          }
          cb(null, 'stored');
        })
        .catch((err: unknown) => {
          if ((err as { responseCode?: number }).responseCode) return cb(err as Error);
          log.error({ err }, 'storing an inbound email failed; the sender will retry');
          cb(smtpError(451, '4.3.0 temporary failure, try again later'));
        });
    },
  });
  server.on('error', (err) => log.warn({ err }, 'inbound SMTP connection error'));
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.server.address() as AddressInfo).port;
  log.info({ port: bound }, 'inbound SMTP listener ready');
  return { port: bound, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
