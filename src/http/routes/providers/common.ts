// What every provider callback route shares: the secrets, constant-time comparison, raw-body
// reading, JSON and zod parsing into 400s (the document made storable first: README "Security
// notes"), and handing reports to recordReports.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z, type ZodType } from 'zod';
import type { DeliveryReport } from '../../../channels/port.ts';
import type { Engage } from '../../../context.ts';
import { describeIssues, unauthorized, unsupportedMediaType, validationError } from '../../../errors.ts';
import type { EventMetadata } from '../../../eventstore/port.ts';
import { isId } from '../../../ids.ts';
import { recordReports, type ReportScope } from '../../../messages/reports.ts';
import type { InboundChannel } from '../../../../commands/conversation.ts';
import type { ReplyFamily } from '../../../../projections/reply-routes.ts';
import { accountOfInboundPhone } from '../../../conversations/routing.ts';
import { receiveInbound } from '../../../conversations/service.ts';
import { serviceSecret } from '../../../service-secrets.ts';
import { makeStorable } from '../../../storable-text.ts';
import { toIssues } from '../../../validation.ts';

/** Provider callbacks are small; a WhatsApp batch of statuses stays far below this. */
export const CALLBACK_BODY_LIMIT = 5 * 1024 * 1024;
/** reports in one sandbox or SMTP callback that sends an array */
export const MAX_REPORTS = 1000;

export interface ProviderSecrets {
  sandbox: string;
  smtp: string;
  carrier: string;
  whatsapp: string;
  whatsappVerifyToken: string;
}

/** The configured secrets, else the ones generated once and kept in service_secrets. */
export async function providerSecrets(engage: Engage): Promise<ProviderSecrets> {
  const c = engage.config;
  const [sandbox, smtp, carrier, whatsapp, whatsappVerifyToken] = await Promise.all([
    serviceSecret(engage.pool, 'webhook_sandbox', c.WEBHOOK_SECRET_SANDBOX),
    serviceSecret(engage.pool, 'webhook_smtp', c.WEBHOOK_SECRET_SMTP),
    serviceSecret(engage.pool, 'webhook_carrier', c.WEBHOOK_SECRET_CARRIER),
    serviceSecret(engage.pool, 'webhook_whatsapp', c.WEBHOOK_SECRET_WHATSAPP),
    serviceSecret(engage.pool, 'whatsapp_verify_token', c.WHATSAPP_VERIFY_TOKEN),
  ]);
  return { sandbox, smtp, carrier, whatsapp, whatsappVerifyToken };
}

/** Constant-time string equality (hashing first, so neither the length nor the content leaks). */
export function safeEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** What a provider's routes are registered with. */
export interface ProviderContext {
  engage: Engage;
  secrets: ProviderSecrets;
}

/** Registers one provider's routes in the callbacks' child context. */
export type ProviderRoutes = (child: FastifyInstance, ctx: ProviderContext) => void;

// callbacks are limited only when their signature fails (rate-limit plugin; README "Provider callbacks")
export const ROUTE_CONFIG = { auth: 'none', scope: null, rateGroup: 'callback' } as const;

export const received = (n: number) => ({ received: n });

export function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

export function rawBody(req: FastifyRequest): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

export function requireMediaType(req: FastifyRequest, expected: string): void {
  const given = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (given === expected) return;
  throw unsupportedMediaType(given, expected);
}

/** The body as JSON, every string in it storable (NUL dropped, a lone surrogate U+FFFD). */
export function parseJson(raw: Buffer): unknown {
  const text = raw.toString('utf8');
  if (text.trim() === '') throw validationError('request body is empty; send a JSON document', [{ path: '(body)', message: 'empty body' }]);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw validationError('request body is not valid JSON', [{ path: '(body)', message: 'not valid JSON' }]);
  }
  // a provider retries what it is refused: a NUL or a lone surrogate is dropped or replaced here, in
  // every field, instead of failing the write (or a read model) later
  return makeStorable(document);
}

export function parse<T>(schema: ZodType<T>, value: unknown, what: 'body' | 'query' = 'body'): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = toIssues(r.error);
  throw validationError(`invalid ${what}: ${describeIssues(issues)}`, issues);
}

/** A callback authenticated by a shared secret in a header (`what` names the secret in messages). */
export function requireSharedSecret(req: FastifyRequest, headerName: string, expected: string, what: string): void {
  const given = header(req, headerName.toLowerCase());
  if (!given) throw unauthorized(`send ${what} in ${headerName}`);
  if (!safeEqual(given, expected)) throw unauthorized(`${headerName} is not ${what}`);
}

/** A JSON body of one report or an array of them, each checked against `schema`. */
export function jsonReports<T>(req: FastifyRequest, schema: ZodType<T>): T[] {
  requireMediaType(req, 'application/json');
  return parseOneOrMany(schema, parseJson(rawBody(req)));
}

/** One report object, or an array of them (up to MAX_REPORTS). */
function parseOneOrMany<T>(schema: ZodType<T>, value: unknown): T[] {
  if (Array.isArray(value)) return parse(z.array(schema).min(1, 'send at least one report').max(MAX_REPORTS, `at most ${MAX_REPORTS} reports per callback`), value);
  return [parse(schema, value)];
}

/** A message id of ours, or nothing: anything else can only be an unknown message. */
export const ourId = (id: string | undefined) => (id !== undefined && isId('message', id) ? id : undefined);

/** Our message id from an email's: `msg_…`, or the Message-ID header we set, `<msg_…@from-domain>`. */
export const messageIdOfEmail = (id: string | undefined) => id?.trim().replace(/^<(.*)>$/, '$1').split('@')[0];

export const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ''));

export const metadataFor = (req: FastifyRequest, provider: string): EventMetadata => ({
  actor: `provider:${provider}`,
  requestId: req.id,
  correlationId: req.id,
  causationId: req.id,
});

/**
 * Reports that name no message we could know are dropped here; the rest go to recordReports (in
 * `scope`: only messages of that account, when the callback came through its own integration).
 */
export async function record(engage: Engage, req: FastifyRequest, provider: string, reports: DeliveryReport[], scope?: ReportScope): Promise<void> {
  const known = reports.filter((r) => r.messageId || r.providerMessageId);
  if (known.length) await recordReports(engage, known, metadataFor(req, provider), scope);
}

export const ids = {
  message_id: z.string().min(1).max(128).optional(),
  provider_message_id: z.string().min(1).max(256).optional(),
};
export const needsAnId = (b: { message_id?: string; provider_message_id?: string }) => b.message_id !== undefined || b.provider_message_id !== undefined;
export const anIdIssue = { message: 'give message_id or provider_message_id', path: ['message_id'] };

/** An inbound sms or whatsapp message as a provider callback gives it. */
export interface ProviderInbound {
  channel: InboundChannel;
  family: ReplyFamily;
  from: string;
  /** every form the provider gives of the number written to */
  to: string[];
  body: string;
  providerMessageId: string;
  receivedAt?: Date;
  /** the account it belongs to when the callback URL says (a Twilio integration's): no routing by number */
  accountId?: string;
}

/**
 * Records an inbound message in the conversation of the account it belongs to; one that belongs to
 * no account is logged (without the numbers) and acknowledged, so the provider does not retry it.
 */
export async function receiveFromProvider(engage: Engage, req: FastifyRequest, provider: string, m: ProviderInbound): Promise<void> {
  // WhatsApp names numbers without the +
  const from = m.from.startsWith('+') ? m.from : `+${m.from}`;
  const accountId = m.accountId ?? (await accountOfInboundPhone(engage, m.family, from, m.to));
  if (!accountId) {
    engage.log.info({ provider, providerMessageId: m.providerMessageId }, 'inbound message to a number no account sends from; acknowledged and dropped');
    return;
  }
  const metadata = { ...metadataFor(req, provider), accountId };
  await receiveInbound(engage, accountId, {
    channel: m.channel, from, to: m.to[0]!, body: m.body, provider, providerMessageId: m.providerMessageId,
    receivedAt: m.receivedAt ?? engage.clock.now(),
  }, metadata);
}
