// Sends that name a template (README "Templates"): each such item of a send, a bulk or a
// send-by-tag is rendered before it is validated, into the plain send it stands for (its message,
// subject and HTML made by the template from the recipient's contact, the account and the item's
// data). A template that is missing, a variable missing under strict mode or a render that fails
// is the item's own issue: a 400 for a single send, a failed item of a bulk.
import { z } from 'zod';
import type { Channel } from '../../commands/message.ts';
import { type ContactRow, contactsWithAddresses } from '../../projections/contacts.ts';
import type { Engage } from '../context.ts';
import { AppError, type Issue } from '../errors.ts';
import { newId } from '../ids.ts';
import { normaliseRecipient } from '../messages/validation.ts';
import { toIssues } from '../validation.ts';
import { readsContact, renderScope, renderVersion, sendFields, type TemplateVersion } from './render.ts';
import { renderContext, templateVersion } from './service.ts';

const MAX_DATA_CHARS = 65_536;

/** A send's fields that name its template; the content fields it then leaves out. */
export const TemplateSendFields = {
  template_id: z.string().min(1).max(64).describe('render the message from this template (message, subject and htmlmessage are then left out)'),
  template_version: z.int().min(1).max(2_147_483_647).describe('the template version to render; the newest when left out'),
  data: z
    .record(z.string(), z.unknown())
    .refine((d) => JSON.stringify(d).length <= MAX_DATA_CHARS, `at most ${MAX_DATA_CHARS} characters as JSON`)
    .describe('the values the template reads as data.<key>'),
};
const TemplateRef = z.object({ template_id: TemplateSendFields.template_id, template_version: TemplateSendFields.template_version.optional(), data: TemplateSendFields.data.optional() });
const CONTENT_FIELDS = ['message', 'subject', 'htmlmessage'] as const;

/** A send item after its template is rendered: the plain send body, the message id its render used, and the version. */
export type RenderedSend =
  | { ok: true; body: unknown; messageId?: string; template?: { id: string; version: number } }
  | { ok: false; issues: Issue[] };

const names = (item: unknown): item is Record<string, unknown> & { template_id: unknown } =>
  item !== null && typeof item === 'object' && !Array.isArray(item) && 'template_id' in item;

/** The issues of an AppError that carries them (a validation error), else its message as one. */
const issuesOf = (err: AppError, path: string): Issue[] => ((err.extra as { issues?: Issue[] } | undefined)?.issues ?? [{ path, message: err.message }]);

/**
 * Renders every item that names a template; the others are returned as they are. One read of each
 * template version, of the account, and (when a template reads contact.*) of the recipients'
 * contacts, for all the items.
 */
export async function renderTemplatedSends(engage: Engage, accountId: string, items: readonly unknown[]): Promise<RenderedSend[]> {
  const out: RenderedSend[] = items.map((body) => ({ ok: true, body }));
  const templated: { index: number; item: Record<string, unknown>; ref: z.infer<typeof TemplateRef> }[] = [];
  for (const [index, item] of items.entries()) {
    if (!names(item)) continue;
    const { template_id, template_version, data, ...rest } = item;
    const ref = TemplateRef.safeParse({ template_id, template_version, data });
    const issues: Issue[] = ref.success ? [] : toIssues(ref.error);
    for (const field of CONTENT_FIELDS) if (rest[field] !== undefined) issues.push({ path: field, message: `${field} is made by the template: leave it out when template_id is given` });
    if (issues.length || !ref.success) out[index] = { ok: false, issues };
    else templated.push({ index, item: rest, ref: ref.data });
  }
  if (templated.length === 0) return out;

  // each version once
  const versions = new Map<string, Promise<TemplateVersion>>();
  const versionOf = (ref: z.infer<typeof TemplateRef>) => {
    const key = `${ref.template_id}:${ref.template_version ?? ''}`;
    let v = versions.get(key);
    if (!v) {
      v = templateVersion(engage, accountId, ref.template_id, ref.template_version);
      v.catch(() => undefined);
      versions.set(key, v);
    }
    return v;
  };
  const { account, mode } = await renderContext(engage, accountId);
  const loaded: { index: number; item: Record<string, unknown>; ref: z.infer<typeof TemplateRef>; version: TemplateVersion; channel: Channel; to?: string }[] = [];
  for (const t of templated) {
    let version: TemplateVersion;
    try {
      version = await versionOf(t.ref);
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode !== 404) throw err;
      const path = err.message === 'template version not found' ? 'template_version' : 'template_id';
      out[t.index] = { ok: false, issues: [{ path, message: err.message === 'template version not found' ? 'no such version of the template' : 'no such template' }] };
      continue;
    }
    const channel = t.item.channel === undefined ? version.channel : t.item.channel;
    if (channel !== version.channel) {
      out[t.index] = { ok: false, issues: [{ path: 'channel', message: `the template is for ${version.channel}` }] };
      continue;
    }
    // the recipient as contacts keep it (a malformed one is left to the send's validation)
    const recipient = typeof t.item.to === 'string' ? normaliseRecipient(version.channel, t.item.to) : undefined;
    loaded.push({ ...t, version, channel: version.channel, ...(recipient?.ok ? { to: recipient.to } : {}) });
  }

  // the recipients' contacts, when a template reads contact.*
  const addresses = loaded.filter((l) => l.to !== undefined && readsContact(l.version)).map((l) => l.to!);
  const contactOf = new Map<string, ContactRow>();
  // the lowest contact id wins where two contacts share a phone (as quiet hours' time zones do)
  const found = (await contactsWithAddresses(engage.pool, accountId, addresses)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const c of found) for (const address of [c.email, c.phone]) if (address !== null && !contactOf.has(address)) contactOf.set(address, c);

  for (const l of loaded) {
    const messageId = newId('message');
    const scope = renderScope({
      contact: l.to === undefined ? undefined : contactOf.get(l.to),
      data: l.ref.data,
      account,
      message: { id: messageId, channel: l.channel, ...(l.to !== undefined ? { to: l.to } : {}) },
    });
    try {
      const body = { ...l.item, channel: l.channel, ...sendFields(renderVersion(l.version, scope, mode)) };
      out[l.index] = { ok: true, body, messageId, template: { id: l.version.id, version: l.version.version } };
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode !== 400) throw err;
      out[l.index] = { ok: false, issues: issuesOf(err, 'template_id') };
    }
  }
  return out;
}
