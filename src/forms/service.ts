// Signup forms (README "Signup forms"): their definitions (create, update, delete), a submission
// from the hosted page, the snippet or any front end, and its confirmation by the signed link
// (double opt-in), which makes it a contact on the form's list with its consent recorded.
import { currentState } from '../eventstore/snapshots.ts';
import { contactDecider, contactStream } from '../../commands/contact.ts';
import { type FormDefinition, type FormState, formDecider, formStream } from '../../commands/form.ts';
import { type FormSubmissionState, formSubmissionDecider, formSubmissionStream, linkExpired } from '../../commands/form-submission.ts';
import { listDecider, listStream } from '../../commands/list.ts';
import type { FormRow } from '../../projections/forms.ts';
import { expiredSubmissions } from '../../projections/forms.ts';
import { handleCommand } from '../command-handler.ts';
import { loadDefinitions, updateContact } from '../contacts/service.ts';
import type { Engage } from '../context.ts';
import { fold } from '../decider.ts';
import { AppError, describeIssues, invalidField, notFound, validationError } from '../errors.ts';
import { resolveOne } from '../events/contacts.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { isId, newId } from '../ids.ts';
import { addListMember } from '../lists/service.ts';
import { acceptMessages } from '../messages/service.ts';
import { unsuppressRecipient } from '../messages/suppressions.ts';
import { validateSend } from '../messages/validation.ts';
import { addressHasher } from '../personal-data/address-hash.ts';
import { ERASED } from '../personal-data/codec.ts';
import { eraseKeys, submissionSubject } from '../personal-data/keys.ts';
import { unsubscribeBaseUrl } from '../suppressions/unsubscribe-links.ts';
import { FormTokens } from './tokens.ts';
import { type FormInput, type SubmittedContact, formDefinition, submittedContact } from './validation.ts';

/** How long a confirmation link works; a submission nobody confirmed by then is erased. */
export const CONFIRM_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** A form as the API shows it. */
export interface FormView extends FormDefinition {
  id: string;
  submissions: number;
  confirmed: number;
  /** the hosted page */
  url: string;
  /** HTML to paste into a page: the form, posting to the public submit route */
  snippet: string;
  created_at: string;
  updated_at: string;
}

/** The base of the hosted page, submit and confirmation URLs: PUBLIC_BASE_URL, else this server. */
export const formsBaseUrl = (engage: Engage) => unsubscribeBaseUrl(engage);

export function formOut(engage: Engage, r: Pick<FormRow, 'id' | 'definition' | 'submissions' | 'confirmed'> & { created_at: Date | string; updated_at: Date | string }): FormView {
  const base = formsBaseUrl(engage);
  return {
    id: r.id,
    ...r.definition,
    submissions: r.submissions,
    confirmed: r.confirmed,
    url: `${base}/f/${r.id}`,
    snippet: `<div data-engage-form="${r.id}"></div>\n<script src="${base}/f/${r.id}/embed.js" async></script>`,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

/** The view of a form from its stream, when the read model has not applied a write yet (counts as the read model last had them). */
export const formViewOfState = (engage: Engage, s: FormState, counts = { submissions: 0, confirmed: 0 }) =>
  formOut(engage, { id: s.id!, definition: s.definition!, ...counts, created_at: s.createdAt!, updated_at: s.updatedAt! });

async function loadForm(engage: Engage, id: string): Promise<FormState> {
  if (!isId('form', id)) return formDecider.initialState;
  return fold(formDecider, (await engage.store.readStream(formStream(id))).map((e) => ({ type: e.type, data: e.data }) as never));
}

/** The list a form adds to must be a live list of the account (its stream says; the read model may be behind a list just made). */
async function requireList(engage: Engage, accountId: string, listId: string): Promise<void> {
  const state = isId('list', listId) ? (await currentState(engage.store, listDecider, listStream(listId))).state : undefined;
  if (state?.status !== 'active' || state.accountId !== accountId) throw invalidField('list_id', 'no such list');
}

export interface FormWrite {
  state: FormState;
  position?: Position;
}

export async function createForm(engage: Engage, accountId: string, input: FormInput, metadata: EventMetadata): Promise<FormWrite> {
  const definition = formDefinition(input, undefined, await loadDefinitions(engage, accountId));
  await requireList(engage, accountId, definition.list_id);
  const id = newId('form');
  const r = await handleCommand(engage.store, formDecider, formStream(id), { type: 'CreateForm', accountId, id, definition, now: engage.clock.now() }, metadata, { fresh: true });
  return { state: r.state, position: r.position };
}

export async function updateForm(engage: Engage, accountId: string, id: string, input: FormInput, metadata: EventMetadata): Promise<FormWrite> {
  const current = await loadForm(engage, id);
  if (current.status !== 'active' || current.accountId !== accountId) throw notFound('form');
  const definition = formDefinition(input, current.definition, await loadDefinitions(engage, accountId));
  if (definition.list_id !== current.definition!.list_id) await requireList(engage, accountId, definition.list_id);
  const r = await handleCommand(engage.store, formDecider, formStream(id), { type: 'UpdateForm', accountId, changes: definition, now: engage.clock.now() }, metadata);
  return { state: r.state, position: r.position };
}

export async function deleteForm(engage: Engage, accountId: string, id: string, metadata: EventMetadata): Promise<{ position?: Position }> {
  if (!isId('form', id)) throw notFound('form');
  const r = await handleCommand(engage.store, formDecider, formStream(id), { type: 'DeleteForm', accountId, now: engage.clock.now() }, metadata);
  return { position: r.position };
}

/** Where a submission came from, and what it said about how it was filled. */
export interface SubmissionContext {
  ip: string | null;
  userAgent: string | null;
  /** the hidden honeypot field: a person leaves it empty */
  honeypot?: string;
  /** the start token the hosted page or the snippet carried (src/forms/tokens.ts) */
  started?: string;
  /** a browser's form post: it must carry a start token (the hosted page and the snippet always do) */
  startRequired: boolean;
}

export type SubmitResult =
  /** stored: waiting for its confirmation (double opt-in) or confirmed at once */
  | { status: 'pending' | 'confirmed'; submissionId: string; contactId?: string; position?: Position }
  /** a bot's (the honeypot filled in, or filled faster than a person can): answered like the others, nothing stored */
  | { status: 'ignored' };

/** Why a submission is a bot's, or undefined for a person's (README "Signup forms": bots). */
async function botReason(engage: Engage, form: FormRow, ctx: SubmissionContext): Promise<string | undefined> {
  if (ctx.honeypot) return 'honeypot';
  if (ctx.started === undefined) return ctx.startRequired ? 'no start token' : undefined;
  const shown = (await FormTokens.of(engage.pool)).startedAt(form.id, ctx.started);
  if (!shown) return 'bad start token';
  const took = engage.clock.now().getTime() - shown.getTime();
  if (took < form.definition.min_fill_seconds * 1000) return 'filled too fast';
  // a page left open for a day is shown again before it is sent; a token that old is a replay
  if (took > 24 * 60 * 60 * 1000) return 'stale start token';
  return undefined;
}

/**
 * A submission of a live form: a bot's is ignored, bad values are a 400, and a person's is stored
 * sealed under its own key, then either confirmed at once (no double opt-in) or sent its link.
 */
export async function submitForm(engage: Engage, form: FormRow, values: Record<string, unknown>, ctx: SubmissionContext, baseMetadata: EventMetadata): Promise<SubmitResult> {
  const accountId = form.account_id;
  const metadata: EventMetadata = { ...baseMetadata, accountId, actor: `form:${form.id}` };
  const bot = await botReason(engage, form, ctx);
  if (bot) {
    engage.log.info({ form_id: form.id, reason: bot }, 'form submission taken for a bot\'s; ignored');
    return { status: 'ignored' };
  }
  const def = form.definition;
  const contact = submittedContact(def, values, await loadDefinitions(engage, accountId));
  const address = def.confirmation.channel === 'email' ? contact.email! : contact.phone!;
  const hash = await addressHasher(engage.pool);
  const id = newId('formSubmission');
  const now = engage.clock.now();
  const expires = def.double_opt_in ? new Date(now.getTime() + CONFIRM_LINK_TTL_MS) : null;
  const submitted = await handleCommand(
    engage.store,
    formSubmissionDecider,
    formSubmissionStream(id),
    {
      type: 'Submit',
      submission: {
        account_id: accountId, id, form_id: form.id, fields: { ...contact }, address_hash: hash(address), ip: ctx.ip, user_agent: ctx.userAgent,
        consent_text: def.consent_text, double_opt_in: def.double_opt_in, expires_at: expires?.toISOString() ?? null,
      },
      now,
    },
    metadata,
    { fresh: true },
  );
  if (!def.double_opt_in) {
    const confirmed = await confirmSubmission(engage, id, metadata);
    return { status: 'confirmed', submissionId: id, contactId: confirmed.contactId, position: confirmed.position };
  }
  const link = `${formsBaseUrl(engage)}/f/confirm/${(await FormTokens.of(engage.pool)).confirmToken(id, expires!)}`;
  const sent = await sendConfirmation(engage, accountId, def, address, link, metadata);
  return { status: 'pending', submissionId: id, position: sent ?? submitted.position };
}

const CONFIRM_URL = /\{\{\s*confirm_url\s*\}\}/;

/** The form's confirmation message with its link, to the address entered: transactional (the person asked for it). */
async function sendConfirmation(engage: Engage, accountId: string, def: FormDefinition, to: string, link: string, metadata: EventMetadata): Promise<Position | undefined> {
  const { channel, subject, message } = def.confirmation;
  const text = CONFIRM_URL.test(message) ? message.replaceAll(new RegExp(CONFIRM_URL, 'g'), link) : `${message}\n\n${link}`;
  const checked = validateSend({ to, channel, message: text, ...(channel === 'email' && subject ? { subject } : {}), transactional: true }, engage.clock.now());
  if (!checked.ok) throw validationError(`the form's confirmation message cannot be sent: ${describeIssues(checked.issues)}`, checked.issues);
  return (await acceptMessages(engage, accountId, [checked.value], metadata)).position;
}

async function loadSubmission(engage: Engage, id: string): Promise<FormSubmissionState> {
  return fold(formSubmissionDecider, (await engage.store.readStream(formSubmissionStream(id))).map((e) => ({ type: e.type, data: e.data }) as never));
}

/** The submission a confirmation token names; undefined for a token that is not genuine. */
export async function submissionOfToken(engage: Engage, token: string): Promise<string | undefined> {
  return (await FormTokens.of(engage.pool)).submissionOf(token);
}

/**
 * Confirms a submission: the contact found by its address (or created), the other values set on
 * it, put on the form's list, its consent recorded on its stream, the submission marked confirmed
 * and its key destroyed (what was entered now lives in the contact). Every step can be repeated: a
 * confirmation cut off half-way is completed by the link followed again.
 */
export async function confirmSubmission(engage: Engage, submissionId: string, baseMetadata: EventMetadata): Promise<{ contactId: string; formId: string; already: boolean; position?: Position }> {
  const state = await loadSubmission(engage, submissionId);
  if (state.status === 'none') throw notFound('submission');
  const s = state.submitted!;
  // the person confirming through the form: its actor, whoever's request carried it
  const metadata: EventMetadata = { ...baseMetadata, accountId: s.account_id, actor: `form:${s.form_id}` };
  if (state.status === 'confirmed') return { contactId: state.contactId!, formId: s.form_id, already: true };
  const entered = s.fields as unknown as Partial<SubmittedContact> | string | null;
  const form = await loadForm(engage, s.form_id);
  const by = form.definition?.confirmation.channel === 'sms' ? 'phone' : 'email';
  // erased (its address was, or it expired): nothing left to make a contact of
  const address = entered !== null && typeof entered === 'object' ? entered[by] : undefined;
  if (state.status === 'expired' || typeof address !== 'string' || address === ERASED) throw linkExpired();
  if (s.expires_at !== null && Date.parse(s.expires_at) <= engage.clock.now().getTime()) throw linkExpired();
  if (form.status !== 'active') throw new AppError(410, 'gone', 'this form no longer exists');
  const def = form.definition!;
  const accountId = s.account_id;

  let position: Position | undefined;
  const reached = (p: Position | undefined) => {
    if (p) position = p;
  };
  const contactId = await contactOf(engage, accountId, def, { custom_fields: {}, ...(entered as Partial<SubmittedContact>) }, metadata, reached);
  try {
    reached((await addListMember(engage, accountId, def.list_id, contactId, metadata)).position);
  } catch (err) {
    // the list was deleted since: the contact and its consent are still recorded
    if (!(err instanceof AppError && err.statusCode === 404)) throw err;
    engage.log.warn({ form_id: form.id, list_id: def.list_id }, "a form's list is gone; the confirmed contact is on no list");
  }
  const consent = await handleCommand(
    engage.store,
    contactDecider,
    contactStream(contactId),
    {
      type: 'RecordConsent',
      accountId,
      consent: {
        form_id: s.form_id, submission_id: s.id, list_id: def.list_id, method: s.double_opt_in ? 'double_opt_in' : 'single_opt_in', text: s.consent_text,
        ip: s.ip, user_agent: s.user_agent, submitted_at: s.submitted_at,
      },
      now: engage.clock.now(),
    },
    metadata,
  );
  reached(consent.position);
  if (s.double_opt_in) {
    // the person proved the address is theirs and asked for the list: an earlier unsubscribe of it is
    // undone (a complaint, a STOP, a bounce, a manual or an erasure's suppression never is)
    reached((await unsuppressRecipient(engage, { accountId, address, source: `form:${s.form_id}`, reasons: ['unsubscribe'] }, metadata)).position);
  }
  const confirmed = await handleCommand(engage.store, formSubmissionDecider, formSubmissionStream(s.id), { type: 'Confirm', contactId, now: engage.clock.now() }, metadata);
  reached(confirmed.position);
  // what was entered is in the contact now (sealed under its key): the submission's copy goes
  await eraseKeys(engage.pool, accountId, [submissionSubject(s.id)], s.id);
  return { contactId, formId: s.form_id, already: false, position };
}

/**
 * The contact a confirmed submission is: found by its address (or made with all it entered), else
 * updated with the rest of what it entered. A value another contact holds (the phone of a form that
 * confirms by email) is left out rather than failing the confirmation.
 */
async function contactOf(engage: Engage, accountId: string, def: FormDefinition, entered: SubmittedContact, metadata: EventMetadata, reached: (p: Position | undefined) => void): Promise<string> {
  const by = def.confirmation.channel === 'email' ? 'email' : 'phone';
  const { custom_fields, ...standard } = entered;
  const traits: Record<string, unknown> = Object.fromEntries(Object.entries(standard).filter(([k, v]) => k !== by && v !== undefined));
  if (Object.keys(custom_fields).length > 0) traits.custom_fields = custom_fields;
  const found = await resolveOne(engage, accountId, { contact: { [by]: entered[by] }, traits }, metadata).catch(async (err: unknown) => {
    const field = err instanceof AppError && err.code === 'conflict' ? (err.extra.field as string | undefined) : undefined;
    if (!field || !(field in traits)) throw err;
    delete traits[field];
    return resolveOne(engage, accountId, { contact: { [by]: entered[by] }, traits }, metadata);
  });
  reached(found.position);
  if (!found.traitsApplied && Object.keys(traits).length > 0) {
    const update = (t: Record<string, unknown>) => updateContact(engage, accountId, found.contactId, t, metadata);
    const updated = await update(traits).catch(async (err: unknown) => {
      const field = err instanceof AppError && err.code === 'conflict' ? (err.extra.field as string | undefined) : undefined;
      if (!field || !(field in traits)) throw err;
      const { [field]: _, ...rest } = traits;
      return update(rest);
    });
    reached(updated.position);
  }
  return found.contactId;
}

/** At most this many expired submissions are erased per sweep. */
const SWEEP_BATCH = 100;

/**
 * Erases the pending submissions whose link has run out (their keys destroyed, FormSubmissionExpired
 * appended): nobody confirmed them, so nothing of them is kept. Returns how many it erased.
 */
export async function expireSubmissions(engage: Engage): Promise<number> {
  const now = engage.clock.now();
  const due = await expiredSubmissions(engage.pool, now, SWEEP_BATCH);
  for (const { id, account_id } of due) {
    await eraseKeys(engage.pool, account_id, [submissionSubject(id)], id);
    await handleCommand(engage.store, formSubmissionDecider, formSubmissionStream(id), { type: 'Expire', now }, { actor: 'system:forms', accountId: account_id });
  }
  return due.length;
}
