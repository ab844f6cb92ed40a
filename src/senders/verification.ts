// Proof that a phone number is the account's (README "Senders and sender rules", "Proving a
// number"): the account asks for a code; a courier in the workers makes it, keeps only its keyed
// hash on the sender's stream and sends it to the number through the service's own provider, from
// the service's own number — never as a message of the account, so nothing the account can read (its
// history, timelines, webhooks, its own integration) ever holds the code; the account enters it back.
import { createHmac, randomInt } from 'node:crypto';
import { senderDecider, senderStream, type SenderEvent, type VerificationMethod } from '../../commands/sender.ts';
import type { ChannelProvider, SendOutcome } from '../channels/port.ts';
import { handleCommand, waitForReadModels } from '../command-handler.ts';
import type { Engage } from '../context.ts';
import { AppError } from '../errors.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { isId } from '../ids.ts';
import { notFound } from '../errors.ts';
import { storedSecret } from '../service-secrets.ts';
import { loadSender, type SenderWrite, senderView } from './service.ts';
import { within } from '../sleep.ts';

/**
 * The keyed hash of a code (HMAC-SHA256 under a service secret, bound to the sender): what the log
 * keeps. Without the secret a hash says nothing about the code; the code itself is never stored.
 */
export async function codeHash(engage: Pick<Engage, 'pool'>, senderId: string, code: string): Promise<string> {
  const key = await storedSecret(engage.pool, 'sender_verification');
  return createHmac('sha256', key).update(`${senderId}:${code}`, 'utf8').digest('base64url');
}

/** Asks for a code to be sent to the account's sender by text or call (rate-limited by the decider). */
export async function requestVerification(engage: Engage, accountId: string, id: string, method: VerificationMethod, metadata: EventMetadata): Promise<SenderWrite> {
  if (!isId('sender', id)) throw notFound('sender');
  const current = await loadSender(engage, id);
  // the service's own numbers would send their code to the service itself: nobody's to prove
  const own = [engage.config.DEFAULT_SMS_SENDER, engage.config.DEFAULT_WHATSAPP_SENDER];
  const serviceNumber = current.identity !== undefined && own.includes(current.identity.sender);
  const result = await handleCommand(engage.store, senderDecider, senderStream(id), { type: 'RequestVerification', accountId, method, serviceNumber, now: engage.clock.now() }, metadata);
  return { sender: senderView(result.state, engage.clock.now()), position: result.position };
}

/**
 * Checks a code the account entered. A wrong one is recorded (it counts against the code's 5
 * attempts) and answered `400 validation_error` with `attempts_left`.
 */
export async function verifySender(engage: Engage, accountId: string, id: string, code: string, metadata: EventMetadata): Promise<SenderWrite> {
  if (!isId('sender', id)) throw notFound('sender');
  const hash = await codeHash(engage, id, code);
  const result = await handleCommand(engage.store, senderDecider, senderStream(id), { type: 'Verify', accountId, codeHash: hash, now: engage.clock.now() }, metadata);
  const failed = result.events.find((e): e is Extract<SenderEvent, { type: 'SenderVerificationFailed' }> => e.type === 'SenderVerificationFailed');
  if (failed) {
    // the attempt is stored: the account's next read shows what is left
    await waitForReadModels(engage, ['senders'], result.position);
    const left = failed.data.attempts_left;
    const message = left > 0 ? `wrong code; ${left} attempt(s) left` : 'wrong code; no attempts left: ask for a new code (POST /v1/senders/:id/verification)';
    throw new AppError(400, 'validation_error', `code: ${message}`, { issues: [{ path: 'code', message }], attempts_left: left });
  }
  return { sender: senderView(result.state, engage.clock.now()), position: result.position };
}

/** What the number's owner reads or hears: a call reads the digits one by one, twice. */
export function codeText(code: string, method: VerificationMethod): string {
  if (method === 'voice') {
    const spoken = code.split('').join(' ');
    return `Your engage verification code is ${spoken}. Again: ${spoken}.`;
  }
  return `Your engage verification code is ${code}. It expires in 10 minutes. Do not share it: engage never asks for it.`;
}

/** The service's own provider for a channel (never an account's integration). */
export interface ServiceProviders {
  for(channel: VerificationMethod): ChannelProvider;
}

/**
 * The courier's work for one sender whose account asked for a code: makes a code, stores its hash
 * (an append at the revision read: of several couriers exactly one serves a request), then sends it.
 * A code the provider refuses is recorded undelivered; the account may ask again. A courier that dies
 * between the append and the send leaves a code nobody received: the account asks again.
 */
export async function deliverVerificationCode(engage: Engage, providers: ServiceProviders, senderId: string, accountId: string): Promise<{ position?: Position } | undefined> {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const hash = await codeHash(engage, senderId, code);
  const metadata: EventMetadata = { accountId, actor: 'sender-verification' };
  const started = await handleCommand(engage.store, senderDecider, senderStream(senderId), { type: 'StartVerification', codeHash: hash, now: engage.clock.now() }, metadata);
  const event = started.events[0];
  if (event?.type !== 'SenderVerificationStarted') return undefined;
  const provider = providers.for(event.data.method);
  let outcome: SendOutcome;
  try {
    outcome = await within(
      provider.send({
        id: `${senderId}-code-${Date.parse(event.data.started_at)}`,
        accountId,
        channel: event.data.method,
        to: started.state.identity!.sender,
        message: codeText(code, event.data.method),
        sender: engage.config.DEFAULT_SMS_SENDER ?? null,
      }),
      engage.config.DISPATCH_PROVIDER_TIMEOUT_MS,
    );
  } catch (err) {
    outcome = { kind: 'transient', error: err instanceof Error ? err.message : String(err) };
  }
  if (outcome.kind === 'accepted') return { position: started.position };
  const reason = outcome.kind === 'rejected' ? outcome.reason : `provider_unavailable: ${outcome.error}`;
  engage.log.warn({ sender_id: senderId, provider: provider.name, reason }, 'a sender verification code could not be sent');
  return handleCommand(engage.store, senderDecider, senderStream(senderId), { type: 'RecordUndelivered', codeHash: hash, reason, now: engage.clock.now() }, metadata);
}

