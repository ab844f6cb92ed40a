// Templates (README "Templates"): saving one (each change a new version, its Liquid checked first),
// the views the API answers with, and rendering a version for a contact and a send's data.
import type { TemplateVariables } from '../../commands/account.ts';
import type { Channel } from '../../commands/message.ts';
import { type TemplateCommand, type TemplateContent, templateDecider, type TemplateEvent, type TemplateState, templateStream } from '../../commands/template.ts';
import { accountSettings, findAccount, isAccountUserEmail } from '../../projections/auth.ts';
import { type ContactRow, findContact } from '../../projections/contacts.ts';
import { findTemplate, findTemplateVersion, type TemplateRow, type TemplateVersionRow } from '../../projections/templates.ts';
import type { Engage } from '../context.ts';
import { handleCommand } from '../command-handler.ts';
import { fold } from '../decider.ts';
import { invalid, type Issue, notFound, validationError } from '../errors.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { isId, newId } from '../ids.ts';
import { acceptMessages } from '../messages/service.ts';
import { validateSend } from '../messages/validation.ts';
import { type PartName, type Rendered, syntaxIssues } from './liquid.ts';
import { renderScope, renderVersion, type TemplateVersion } from './render.ts';

/** The request's names of a template's parts. */
const FIELD_OF: Record<PartName, string> = { subject: 'subject', text: 'text', html: 'html' };

/** What only an email template may have. */
const EMAIL_ONLY: readonly PartName[] = ['subject', 'html'];

/** The issues of a template's content for its channel: parts only email has, and Liquid that does not parse. */
export function contentIssues(channel: Channel, content: TemplateContent): Issue[] {
  const issues: Issue[] = [];
  if (channel !== 'email') for (const part of EMAIL_ONLY) if (content[part] !== null) issues.push({ path: FIELD_OF[part], message: `${part} is only allowed on email templates` });
  return [...issues, ...syntaxIssues(content, (p) => FIELD_OF[p])];
}

export interface TemplateWrite {
  id: string;
  state: TemplateState;
  position?: Position;
}

async function runTemplateCommand(engage: Engage, id: string, command: TemplateCommand, metadata: EventMetadata): Promise<TemplateWrite> {
  const result = await handleCommand(engage.store, templateDecider, templateStream(id), command, metadata);
  return { id, state: result.state, position: result.position };
}

export interface TemplateInput {
  name: string;
  channel: Channel;
  subject?: string | null;
  text: string;
  html?: string | null;
}

export async function createTemplate(engage: Engage, accountId: string, input: TemplateInput, metadata: EventMetadata): Promise<TemplateWrite> {
  const content: TemplateContent = { name: input.name, subject: input.subject ?? null, text: input.text, html: input.html ?? null };
  const issues = contentIssues(input.channel, content);
  if (issues.length) throw invalid(issues);
  const id = newId('template');
  return runTemplateCommand(engage, id, { type: 'CreateTemplate', accountId, id, channel: input.channel, now: engage.clock.now(), ...content }, metadata);
}

/** A change: the fields given replace the newest version's (null removes subject or html); the others are kept. */
export type TemplatePatch = Partial<Omit<TemplateInput, 'channel'>>;

export async function reviseTemplate(engage: Engage, accountId: string, id: string, patch: TemplatePatch, metadata: EventMetadata): Promise<TemplateWrite> {
  if (!isId('template', id)) throw notFound('template');
  // judged on the stream's state at the append (handleCommand retries a conflict on a fresh fold)
  return runTemplateCommand(engage, id, { type: 'ReviseTemplate', accountId, now: engage.clock.now(), ...(await patchedContent(engage, accountId, id, patch)) }, metadata);
}

/** The newest version's content with the patch applied, checked. */
async function patchedContent(engage: Engage, accountId: string, id: string, patch: TemplatePatch): Promise<TemplateContent> {
  const events = await engage.store.readStream(templateStream(id));
  const state = fold(templateDecider, events.map((e) => ({ type: e.type, data: e.data }) as TemplateEvent));
  if (state.status !== 'active' || state.accountId !== accountId) throw notFound('template');
  const before = state.content!;
  const content: TemplateContent = {
    name: patch.name ?? before.name,
    subject: patch.subject === undefined ? before.subject : patch.subject,
    text: patch.text ?? before.text,
    html: patch.html === undefined ? before.html : patch.html,
  };
  const issues = contentIssues(state.channel!, content);
  if (issues.length) throw invalid(issues);
  return content;
}

export function deleteTemplate(engage: Engage, accountId: string, id: string, metadata: EventMetadata): Promise<TemplateWrite> {
  if (!isId('template', id)) throw notFound('template');
  return runTemplateCommand(engage, id, { type: 'DeleteTemplate', accountId, now: engage.clock.now() }, metadata);
}

// ---------------------------------------------------------------------------------------------
// views

export function templateOut(r: TemplateRow) {
  return {
    id: r.id, name: r.name, channel: r.channel, version: r.version, subject: r.subject, text: r.text, html: r.html,
    created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString(),
  };
}

/** The view from the stream's state, for a write whose read model is late. */
export function templateView(id: string, s: TemplateState) {
  const c = s.content!;
  return { id, name: c.name, channel: s.channel!, version: s.version, subject: c.subject, text: c.text, html: c.html, created_at: s.createdAt!, updated_at: s.updatedAt ?? s.createdAt! };
}

export function templateVersionOut(r: TemplateVersionRow) {
  return { version: r.version, name: r.name, subject: r.subject, text: r.text, html: r.html, created_at: r.created_at.toISOString() };
}

// ---------------------------------------------------------------------------------------------
// rendering

/** The account's template at `version` (else its newest), or a 404 naming what is missing. */
export async function templateVersion(engage: Engage, accountId: string, id: string, version?: number): Promise<TemplateVersion> {
  const current = await findTemplate(engage.pool, accountId, id);
  if (!current) throw notFound('template');
  if (version === undefined || version === current.version) return { id, channel: current.channel, version: current.version, content: current };
  const row = await findTemplateVersion(engage.pool, accountId, id, version);
  if (!row) throw notFound('template version');
  return { id, channel: row.channel, version: row.version, content: row };
}

export interface PreviewInput {
  contact_id?: string;
  data?: Record<string, unknown>;
  version?: number;
}

/** A version rendered for one of the account's contacts and/or the data given, as a send would render it. */
export async function previewTemplate(engage: Engage, accountId: string, id: string, input: PreviewInput): Promise<Rendered> {
  return renderFor(engage, accountId, await templateVersion(engage, accountId, id, input.version), input);
}

/**
 * A test send: the version rendered as a preview is, sent to `to`, which must be the email of one of
 * the account's own users (a test goes to the team, never to a contact), transactional, its subject
 * marked [Test]. Email templates only: users have no phone numbers.
 */
export async function testSendTemplate(engage: Engage, accountId: string, id: string, input: PreviewInput & { to: string }, metadata: EventMetadata) {
  const t = await templateVersion(engage, accountId, id, input.version);
  if (t.channel !== 'email') throw validationError('only email templates can be sent as a test (to an account user); preview the others', [{ path: 'to', message: `a ${t.channel} template cannot be sent to a user's email: preview it instead` }]);
  const to = input.to.trim().toLowerCase();
  if (!(await isAccountUserEmail(engage.pool, accountId, to))) throw validationError('to: must be the email of one of the account’s users', [{ path: 'to', message: 'must be the email of one of the account’s users' }]);
  const r = await renderFor(engage, accountId, t, input);
  const checked = validateSend(
    { to, channel: 'email', message: r.text, subject: `[Test] ${r.subject || t.content.name}`.replace(/[\r\n]+/g, ' ').slice(0, 998), ...(r.html ? { htmlmessage: r.html } : {}), transactional: true },
    engage.clock.now(),
  );
  if (!checked.ok) throw invalid(checked.issues);
  return acceptMessages(engage, accountId, [{ ...checked.value, template: { id: t.id, version: t.version } }], metadata);
}

async function renderFor(engage: Engage, accountId: string, t: TemplateVersion, input: PreviewInput): Promise<Rendered> {
  let contact: ContactRow | undefined;
  if (input.contact_id !== undefined) {
    contact = await findContact(engage.pool, accountId, input.contact_id);
    if (!contact) throw validationError('contact_id: no such contact', [{ path: 'contact_id', message: 'no such contact' }]);
  }
  const { account, mode } = await renderContext(engage, accountId);
  return renderVersion(t, renderScope({ contact, data: input.data, account, message: { id: 'msg_preview', channel: t.channel } }), mode);
}

/** What every render of an account's templates reads once: the account (account.*) and whether its variables are strict. */
export async function renderContext(engage: Engage, accountId: string): Promise<{ account: { id: string; name: string }; mode: TemplateVariables }> {
  const [account, settings] = await Promise.all([findAccount(engage.pool, accountId), accountSettings(engage.pool, accountId)]);
  return { account: { id: accountId, name: account?.name ?? '' }, mode: settings.template_variables };
}
