// Rendering a template version for one message (README "Templates"): what a template sees (the
// contact, the send's data, the account, the message) and the render itself, strict or lenient.
// Light on imports: a CPU work thread renders a campaign's messages with it (src/cpu-work/tasks.ts).
import type { TemplateVariables } from '../../commands/account.ts';
import type { Channel } from '../../commands/message.ts';
import type { TemplateContent } from '../../commands/template.ts';
import type { ContactRow } from '../../projections/contacts.ts';
import { validationError } from '../errors.ts';
import { compiled, missingVariables, render, RenderFailure, type Rendered } from './liquid.ts';

/** A version of a template, ready to render. */
export interface TemplateVersion {
  id: string;
  channel: Channel;
  version: number;
  content: TemplateContent;
}

/** A contact as templates see it: `contact.<field>`, custom fields under `contact.custom.<key>`. */
export function contactScope(c: ContactRow) {
  return {
    id: c.id, email: c.email, phone: c.phone, first_name: c.first_name, last_name: c.last_name, country: c.country, language: c.language,
    timezone: c.timezone, external_id: c.external_id, tags: c.tags, custom: c.custom_fields, created_at: c.created_at.toISOString(),
  };
}

/**
 * What a template is rendered with. `unsubscribe_url` stays the placeholder: the dispatcher puts each
 * message's own link there (README "Suppressions and unsubscribes").
 */
export function renderScope(parts: { contact?: ContactRow; data?: Record<string, unknown>; account: { id: string; name: string }; message?: { id: string; channel: Channel; to?: string } }) {
  return {
    ...(parts.contact ? { contact: contactScope(parts.contact) } : {}),
    data: parts.data ?? {},
    account: parts.account,
    ...(parts.message ? { message: parts.message } : {}),
    unsubscribe_url: '{{unsubscribe_url}}',
  };
}

/** Whether a version reads `contact.*` (then its sends and campaigns read the recipients' contacts). */
export const readsContact = (t: TemplateVersion) => compiled(`${t.id}:${t.version}`, t.content).variables.some((path) => path[0] === 'contact');

/**
 * A render as a send's content: the text as `message`, a subject and HTML only where they are not
 * empty. A text that renders empty is the send's error.
 */
export function sendFields(r: Rendered): { message: string; subject?: string; htmlmessage?: string } {
  if (r.text.trim() === '') throw validationError('template.text: the template renders an empty message for this send', [{ path: 'template.text', message: 'the template renders an empty message for this send' }]);
  return { message: r.text, ...(r.subject !== null && r.subject !== '' ? { subject: r.subject } : {}), ...(r.html !== null && r.html.trim() !== '' ? { htmlmessage: r.html } : {}) };
}

/**
 * Renders a version with `scope`. Under strict variables, a variable the template reads that the
 * scope has not is a 400 with an issue for every one of them, its path the variable's name.
 */
export function renderVersion(t: TemplateVersion, scope: object, mode: TemplateVariables): Rendered {
  const template = compiled(`${t.id}:${t.version}`, t.content);
  if (mode === 'strict') {
    const missing = missingVariables(template, scope);
    if (missing.length) {
      throw validationError(
        `the template reads variables this send does not give (the account's template variables are strict): ${missing.join(', ')}`,
        missing.map((name) => ({ path: name, message: 'is read by the template and has no value' })),
      );
    }
  }
  try {
    return render(template, scope);
  } catch (err) {
    if (err instanceof RenderFailure) throw validationError(`the template does not render: ${err.message}`, [{ path: `template.${err.part}`, message: err.message }]);
    throw err;
  }
}

