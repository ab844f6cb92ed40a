// The inbound SMTP listener (smtp-server): the MX of INBOUND_EMAIL_DOMAIN. It takes mail for the
// accounts' reply addresses only (any other recipient is refused at RCPT TO), keeps at most
// INBOUND_SMTP_MAX_BYTES of a message (more is discarded as it streams in and answered 552), checks
// who sent it (SPF, DKIM, DMARC), parses it (mailparser) and threads it into the sender's email
// conversation. The 250 after DATA is given once every recipient's copy is stored; a failure of ours
// is a 451, so the sending server tries again and nothing it handed over is lost.
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { Engage } from '../context.ts';
import { CpuTaskError } from '../cpu-work/pool.ts';
import { storableText } from '../storable-text.ts';
import { emailAuthenticationCheck } from './email-authentication.ts';
import { accountOfReplyAddress } from './routing.ts';
import { receiveInbound } from './service.ts';

export interface InboundSmtp {
  port: number;
  close(): Promise<void>;
  /** the most bytes of one message this listener has held at once since it started (at most the limit and one read) */
  peakHeldBytes(): number;
}

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

/** An IPv4 client seen through an IPv6 socket (::ffff:a.b.c.d) is that IPv4 address. */
const clientAddress = (session: SMTPServerSession) => session.remoteAddress.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

/**
 * The message as streamed in, at most INBOUND_SMTP_MAX_BYTES of it (the server's `size`): once the stream says the limit is passed,
 * what was kept is let go and the rest is read and discarded (the sender is still sending; stopping
 * to read would leave it hanging). Resolves with the bytes, or undefined when the message was too big.
 */
function readAtMost(stream: SMTPServerDataStream, held: { peak: number }): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => {
      if (stream.sizeExceeded) {
        chunks = [];
        bytes = 0;
        return;
      }
      chunks.push(chunk);
      bytes += chunk.length;
      held.peak = Math.max(held.peak, bytes);
    });
    stream.once('end', () => resolve(stream.sizeExceeded ? undefined : Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

export async function startInboundSmtp(engage: Engage, port: number, host: string): Promise<InboundSmtp> {
  const log = engage.log.child({ component: 'inbound-smtp' });
  const config = engage.config;
  const authentication = emailAuthenticationCheck(config.DNS_SERVERS, config.INBOUND_EMAIL_DOMAIN);
  // the account each accepted recipient of a connection's session names (found at RCPT TO)
  const accountsOfRecipients = new WeakMap<SMTPServerSession, Map<string, string>>();
  // open connections per client address, and the address each counted connection holds a place of
  const connectionsOf = new Map<string, number>();
  const counted = new Map<string, string>();
  const held = { peak: 0 };

  async function store(raw: Buffer, session: SMTPServerSession): Promise<void> {
    const ip = clientAddress(session);
    const sender = session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined;
    const verdict = await authentication.check(raw, { ip, helo: session.hostNameAppearsAs, sender });
    if (verdict.refused) {
      // a spoof of a domain that asks for exactly this; refused in the session (RFC 7489 section 6.7)
      // rather than accepted and dropped, so a genuine sender whose set-up is broken hears of it
      log.warn({ ip, fromDomain: verdict.fromDomain, authentication: verdict.authentication }, 'inbound email refused: it fails DMARC and its domain asks for reject or quarantine');
      // (the domain comes from the message: only the characters of a domain name go into the reply)
      const domain = verdict.fromDomain?.replace(/[^a-z0-9.-]/gi, '') || 'the sender domain';
      throw smtpError(550, `5.7.1 refused by the DMARC policy of ${domain}`);
    }
    // parsing up to INBOUND_SMTP_MAX_BYTES of MIME: off the request loop (src/cpu-work)
    const fields = await engage.cpu.run('inboundEmail', raw).catch((error: unknown) => {
      // the message itself cannot be read in time (or at all): sending it again would not help
      if (error instanceof CpuTaskError) throw smtpError(554, `5.6.0 the message could not be read: ${error.message.replace(/\s+/g, " ").slice(0, 200)}`);
      throw error;
    });
    const from = fields.from ?? (sender ? storableText(sender) : undefined);
    if (!from) throw smtpError(550, '5.1.7 the message has no sender address');
    const messageId = fields.messageId;
    const accounts = new Set<string>();
    for (const rcpt of session.envelope.rcptTo.map((r) => r.address)) {
      const accountId = accountsOfRecipients.get(session)?.get(rcpt);
      if (!accountId || accounts.has(accountId)) continue;
      accounts.add(accountId);
      const metadata = { actor: 'provider:smtp-inbound', requestId: messageId ?? 'smtp', correlationId: messageId ?? 'smtp', causationId: messageId ?? 'smtp', accountId };
      await receiveInbound(engage, accountId, {
        channel: 'email',
        from,
        to: rcpt.toLowerCase(),
        body: fields.body,
        subject: fields.subject,
        ...(fields.html !== undefined ? { html: fields.html } : {}),
        ...(messageId ? { emailMessageId: messageId } : {}),
        ...(fields.inReplyTo ? { inReplyTo: fields.inReplyTo } : {}),
        references: fields.references,
        provider: 'smtp-inbound',
        ...(messageId ? { providerMessageId: messageId } : {}),
        authentication: verdict.authentication,
        receivedAt: engage.clock.now(),
      }, metadata);
    }
  }

  const server = new SMTPServer({
    name: config.INBOUND_EMAIL_DOMAIN,
    banner: 'engage inbound mail',
    // an MX takes mail from anyone without authentication; TLS needs a certificate, configured in front
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    // advertised (EHLO SIZE), and a larger SIZE= declared at MAIL FROM is refused there (552)
    size: config.INBOUND_SMTP_MAX_BYTES,
    // an MX open to the internet: bounded connections, so a flood cannot take the process down
    maxClients: config.INBOUND_SMTP_MAX_CONNECTIONS,
    logger: false,
    onConnect(session, cb) {
      const ip = clientAddress(session);
      const open = connectionsOf.get(ip) ?? 0;
      if (open >= config.INBOUND_SMTP_MAX_CONNECTIONS_PER_IP) return cb(smtpError(421, '4.7.0 too many connections from your address, try again later'));
      connectionsOf.set(ip, open + 1);
      counted.set(session.id, ip);
      cb();
    },
    onClose(session) {
      const ip = counted.get(session.id);
      if (ip === undefined) return;
      counted.delete(session.id);
      const open = (connectionsOf.get(ip) ?? 1) - 1;
      if (open > 0) connectionsOf.set(ip, open);
      else connectionsOf.delete(ip);
    },
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
      readAtMost(stream, held)
        .then(async (raw) => {
          if (!raw) throw smtpError(552, `5.3.4 message too big: at most ${config.INBOUND_SMTP_MAX_BYTES} bytes`);
          await store(raw, session);
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
  log.info({ port: bound, host }, 'inbound SMTP listener ready');
  return { port: bound, close: () => new Promise<void>((resolve) => server.close(() => resolve())), peakHeldBytes: () => held.peak };
}
