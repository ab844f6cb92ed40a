// Validation of one send request (POST /v1/messages/send and each bulk item): field types, the
// email-only fields, reserved headers, `to` per channel, scheduling and webhook URLs.
import { z } from 'zod';
import { CHANNELS, isMarketing, KEYWORD_REPLY_CATEGORY, PHONE_CHANNELS, type Channel, type MessageContent } from '../../commands/message.ts';
import { RESERVED_HEADERS } from '../channels/port.ts';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { Issue } from '../errors.ts';
import { Timestamp } from '../timestamps.ts';
import { toIssues } from '../validation.ts';
import { checkWebhookUrl } from '../webhooks/ssrf.ts';

const HEADER_NAME = /^[A-Za-z0-9-]{1,64}$/;
/** A push device token (a message's push `to`, a contact's device: README "Push devices"). */
export const PUSH_TOKEN = /^[A-Za-z0-9:_.\-]{8,4096}$/;
export const PUSH_TOKEN_MESSAGE = 'must be a device token (8-4096 characters of A-Z, a-z, 0-9, : _ . -)';
const EMAIL_ONLY = ['htmlmessage', 'subject', 'reply_to', 'from_name', 'headers'] as const;
export const MAX_SCHEDULE_AHEAD_MS = 365 * 24 * 60 * 60 * 1000;

const noNul = (s: string) => !s.includes('\u0000');
// JSON may carry a lone UTF-16 surrogate ("\ud83d"); it is not text, and Postgres jsonb refuses it
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const isWellFormedText = (s: string) => !LONE_SURROGATE.test(s);
const str = (max: number) =>
  z.string().max(max).refine(noNul, 'must not contain NUL characters').refine(isWellFormedText, 'must be valid Unicode text (no unpaired surrogates)');
const noLineBreaks = (v: string) => !/[\r\n]/.test(v);

export const SendFields = {
  to: str(4096).min(1),
  channel: z.enum(CHANNELS),
  message: str(100_000).min(1),
  htmlmessage: str(2_000_000).min(1).optional(),
  subject: str(998).refine(noLineBreaks, 'must not contain line breaks').optional(),
  transactional: z.boolean().optional(),
  category: str(64).refine((c) => c !== KEYWORD_REPLY_CATEGORY, `${KEYWORD_REPLY_CATEGORY} is reserved for the automatic answer to HELP`).optional(),
  sender: str(255).min(1).optional(),
  reply_to: str(320).optional(),
  from_name: str(255).refine(noLineBreaks, 'must not contain line breaks').optional(),
  headers: z.record(z.string(), z.string()).optional(),
  scheduled_at: Timestamp.optional(),
  webhook_url: str(2048).optional(),
};

export const SendBody = z.strictObject(SendFields);
export type SendInput = z.infer<typeof SendBody>;

export interface ValidSend {
  content: MessageContent;
  scheduledAt?: Date;
  /** the message's id, where it was fixed before the send was validated (a template's message.id) */
  id?: string;
  /** the template version the content was rendered from (README "Templates") */
  template?: { id: string; version: number };
  /**
   * The recipient's country (MessageAccepted's `to_country`), found by the same parse that
   * normalised a phone recipient (null: none, or not a phone channel); absent: not known yet, and
   * acceptedData finds it itself.
   */
  toCountry?: string | null;
}

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
  } catch {
    return false;
  }
}

const Email = z.email();

/**
 * Normalises the recipient for its channel, or says why it cannot be one; a phone number's country
 * comes from the same parse (one libphonenumber parse per recipient, not two: README "The write path").
 */
export function normaliseRecipient(channel: Channel, to: string): { ok: true; to: string; country?: string | null } | { ok: false; message: string } {
  if (PHONE_CHANNELS.includes(channel)) {
    const parsed = parsePhoneNumberFromString(to.trim());
    return parsed && parsed.isValid()
      ? { ok: true, to: parsed.number, country: parsed.country ?? null }
      : { ok: false, message: `must be a phone number in E.164 form (e.g. +14155550123) for ${channel}` };
  }
  if (channel === 'email') {
    const v = to.trim().toLowerCase();
    return Email.safeParse(v).success && v.length <= 254 ? { ok: true, to: v } : { ok: false, message: 'must be a valid email address' };
  }
  return PUSH_TOKEN.test(to) ? { ok: true, to } : { ok: false, message: PUSH_TOKEN_MESSAGE };
}

/** Validates one send body; returns the message content or the issues, each naming its field. */
export function validateSend(
  input: unknown,
  now: Date,
  opts: { allowPrivateWebhooks?: boolean } = {},
): { ok: true; value: ValidSend } | { ok: false; issues: Issue[] } {
  const issues: Issue[] = [];
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const o = input as Record<string, unknown>;
    if (o.htmlmessage !== undefined && (o.message === undefined || o.message === '')) {
      issues.push({ path: 'message', message: 'message (the plain-text alternative) is required when htmlmessage is given' });
      return { ok: false, issues };
    }
  }
  const parsed = SendBody.safeParse(input);
  if (!parsed.success) return { ok: false, issues: toIssues(parsed.error) };
  const b = parsed.data;

  if (b.channel !== 'email') {
    for (const f of EMAIL_ONLY) if (b[f] !== undefined) issues.push({ path: f, message: `${f} is only allowed on the email channel` });
  }
  const recipient = normaliseRecipient(b.channel, b.to);
  if (!recipient.ok) issues.push({ path: 'to', message: recipient.message });
  if (b.reply_to !== undefined && !Email.safeParse(b.reply_to.trim()).success) issues.push({ path: 'reply_to', message: 'must be a valid email address' });
  if (b.headers) {
    const entries = Object.entries(b.headers);
    if (entries.length > 50) issues.push({ path: 'headers', message: 'at most 50 headers' });
    for (const [name, value] of entries) {
      if (RESERVED_HEADERS.includes(name.toLowerCase())) issues.push({ path: `headers.${name}`, message: `${name} is a reserved header and cannot be set` });
      else if (!HEADER_NAME.test(name)) issues.push({ path: `headers.${name}`, message: 'header names use only A-Z, a-z, 0-9 and - (at most 64)' });
      else if (value.length > 998 || /[\r\n\u0000]/.test(value) || !isWellFormedText(value)) issues.push({ path: `headers.${name}`, message: 'header values are at most 998 characters of valid text with no CR, LF or NUL' });
    }
  }
  let scheduledAt: Date | undefined;
  if (b.scheduled_at !== undefined) {
    scheduledAt = new Date(b.scheduled_at);
    if (scheduledAt.getTime() < now.getTime()) issues.push({ path: 'scheduled_at', message: 'must be in the future' });
    else if (scheduledAt.getTime() - now.getTime() > MAX_SCHEDULE_AHEAD_MS) issues.push({ path: 'scheduled_at', message: 'must be at most 365 days ahead' });
  }
  if (b.webhook_url !== undefined) {
    // receivers live outside our network (the same rule as webhook endpoints)
    const problem = isHttpUrl(b.webhook_url) ? checkWebhookUrl(b.webhook_url, opts.allowPrivateWebhooks ?? false) : 'must be an absolute http(s) URL';
    if (problem) issues.push({ path: 'webhook_url', message: problem });
  }
  if (issues.length) return { ok: false, issues };

  const content: MessageContent = {
    channel: b.channel,
    to: recipient.ok ? recipient.to : b.to,
    message: b.message,
    // category "transactional" makes it transactional (README "Messaging"): the record says what the policy does
    transactional: !isMarketing({ transactional: b.transactional ?? false, category: b.category }),
    ...(b.htmlmessage !== undefined ? { htmlmessage: b.htmlmessage } : {}),
    ...(b.subject !== undefined ? { subject: b.subject } : {}),
    ...(b.reply_to !== undefined ? { reply_to: b.reply_to.trim().toLowerCase() } : {}),
    ...(b.from_name !== undefined ? { from_name: b.from_name } : {}),
    ...(b.headers !== undefined ? { headers: b.headers } : {}),
    ...(b.sender !== undefined ? { sender: b.sender } : {}),
    ...(b.category !== undefined ? { category: b.category } : {}),
    ...(b.webhook_url !== undefined ? { webhook_url: b.webhook_url } : {}),
  };
  const toCountry = recipient.ok && recipient.country !== undefined ? recipient.country : null;
  return { ok: true, value: { content, scheduledAt, toCountry } };
}

/**
 * validateSend over many items (a bulk's, on a CPU work thread: src/cpu-work/tasks.ts): each item's
 * value or issues, in order.
 */
export function validateSends(items: readonly unknown[], now: Date, opts: { allowPrivateWebhooks?: boolean } = {}) {
  return items.map((item) => validateSend(item, now, opts));
}

/** A well-formed recipient per channel: a template is validated once with it before it is addressed to each contact. */
const TEMPLATE_RECIPIENT: Record<Channel, string> = {
  sms: '+14155550123', rcs: '+14155550123', whatsapp: '+14155550123', voice: '+14155550123', email: 'recipient@example.com', push: 'template-device-token',
};

/**
 * Validates a message template (a send body without `to`: send-by-tag, campaigns), as a send to a
 * well-formed recipient of its channel: a mistake in it is the caller's 400, not one failure per
 * recipient. Its content is returned without `to`.
 */
export function validateTemplate(
  input: Record<string, unknown>,
  now: Date,
  opts: { allowPrivateWebhooks?: boolean } = {},
): { ok: true; value: { content: Omit<MessageContent, 'to'>; scheduledAt?: Date } } | { ok: false; issues: Issue[] } {
  const channel = CHANNELS.includes(input.channel as Channel) ? (input.channel as Channel) : 'sms';
  const checked = validateSend({ ...input, to: TEMPLATE_RECIPIENT[channel] }, now, opts);
  if (!checked.ok) return checked;
  const { to: _to, ...content } = checked.value.content;
  return { ok: true, value: { content, scheduledAt: checked.value.scheduledAt } };
}

/** The contact field a channel's messages are addressed from; none for push (a push names a contact by its id: README "Push devices"). */
export function contactAddressField(channel: Channel): 'email' | 'phone' | null {
  return channel === 'email' ? 'email' : PHONE_CHANNELS.includes(channel) ? 'phone' : null;
}
