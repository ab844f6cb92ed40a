// What a signup form may be, and what a submission of one must hold (README "Signup forms").
import { z } from 'zod';
import type { FieldDefinition } from '../../commands/custom-fields.ts';
import { checkCustomValue } from '../../commands/custom-fields.ts';
import { FORM_STANDARD_FIELDS, type FormDefinition, type FormField } from '../../commands/form.ts';
import { EmailSchema, PhoneSchema } from '../contacts/validation.ts';
import { type Issue, invalid } from '../errors.ts';

export const MAX_FORM_FIELDS = 30;
const STANDARD_LABELS: Record<string, string> = { email: 'Email', phone: 'Phone', first_name: 'First name', last_name: 'Last name' };
const DEFAULT_SUBJECT = 'Please confirm your subscription';
const DEFAULT_MESSAGE = 'Please confirm your subscription by following this link: {{ confirm_url }}';

const FieldSpec = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'email, phone, first_name, last_name or a custom field key'),
  label: z.string().trim().min(1).max(200).optional(),
  required: z.boolean().optional(),
});

const Confirmation = z.strictObject({
  channel: z.enum(['email', 'sms']).optional(),
  subject: z.string().trim().min(1).max(998).regex(/^[^\r\n]*$/, 'one line').nullable().optional(),
  message: z.string().trim().min(1).max(5000).optional(),
});

const RedirectUrl = z
  .url({ protocol: /^https?$/, message: 'an http or https URL' })
  .max(2000)
  .nullable();

const definitionShape = {
  name: z.string().trim().min(1).max(200),
  fields: z.array(FieldSpec).min(1).max(MAX_FORM_FIELDS),
  list_id: z.string().min(1).max(64),
  double_opt_in: z.boolean(),
  confirmation: Confirmation,
  consent_text: z.string().trim().min(1).max(2000),
  redirect_url: RedirectUrl,
  min_fill_seconds: z.int().min(0).max(600),
};

export const FormCreateBody = z.strictObject({
  ...definitionShape,
  double_opt_in: definitionShape.double_opt_in.default(true),
  confirmation: Confirmation.optional(),
  redirect_url: RedirectUrl.optional(),
  min_fill_seconds: definitionShape.min_fill_seconds.default(3),
});
export const FormPatchBody = z.strictObject(Object.fromEntries(Object.entries(definitionShape).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof definitionShape]: z.ZodOptional<(typeof definitionShape)[K]>;
});

export type FormInput = z.output<typeof FormPatchBody>;

/**
 * The whole definition a create, or a patch over the current one, makes; every rule that spans
 * fields checked (a 400 naming each problem): unique field names, standard fields or the account's
 * custom fields, an email or phone asked for, and the address the confirmation goes to required.
 */
export function formDefinition(input: FormInput, current: FormDefinition | undefined, definitions: readonly FieldDefinition[]): FormDefinition {
  const issues: Issue[] = [];
  const custom = new Map(definitions.map((d) => [d.key, d]));
  const specs = input.fields ?? current?.fields ?? [];
  const names = specs.map((f) => f.name);
  specs.forEach((f, i) => {
    if (names.indexOf(f.name) !== i) issues.push({ path: `fields.${i}.name`, message: `${f.name} is asked for twice` });
    else if (!(FORM_STANDARD_FIELDS as readonly string[]).includes(f.name) && !custom.has(f.name)) {
      issues.push({ path: `fields.${i}.name`, message: `must be email, phone, first_name, last_name or the key of a custom field; no custom field "${f.name}" is defined` });
    }
  });
  if (!names.includes('email') && !names.includes('phone')) issues.push({ path: 'fields', message: 'a form must ask for an email or a phone number' });
  const given = input.confirmation ?? {};
  const was = current?.confirmation;
  // the channel given, else the one it had while the form still asks for its address, else email when asked for
  const kept = was && names.includes(was.channel === 'email' ? 'email' : 'phone') ? was.channel : undefined;
  const channel = given.channel ?? kept ?? (names.includes('email') ? 'email' : 'sms');
  const addressField = channel === 'email' ? 'email' : 'phone';
  if (!names.includes(addressField)) issues.push({ path: 'confirmation.channel', message: `the confirmation goes by ${channel}: the form must ask for the ${addressField}` });
  if (issues.length) throw invalid(issues);
  const fields: FormField[] = specs.map((f) => {
    const before = current?.fields.find((c) => c.name === f.name);
    return {
      name: f.name,
      label: f.label ?? before?.label ?? STANDARD_LABELS[f.name] ?? custom.get(f.name)?.label ?? f.name,
      // the address the link goes to cannot be left out
      required: f.name === addressField || (f.required ?? before?.required ?? false),
    };
  });
  return {
    name: input.name ?? current!.name,
    fields,
    list_id: input.list_id ?? current!.list_id,
    double_opt_in: input.double_opt_in ?? current?.double_opt_in ?? true,
    confirmation: {
      channel,
      subject: channel === 'sms' ? null : given.subject !== undefined ? given.subject : (was?.subject ?? DEFAULT_SUBJECT),
      message: given.message ?? was?.message ?? DEFAULT_MESSAGE,
    },
    consent_text: input.consent_text ?? current!.consent_text,
    redirect_url: input.redirect_url !== undefined ? input.redirect_url : (current?.redirect_url ?? null),
    min_fill_seconds: input.min_fill_seconds ?? current?.min_fill_seconds ?? 3,
  };
}

/** What a submission becomes: a contact's fields and custom values. */
export interface SubmittedContact {
  email?: string;
  phone?: string;
  first_name?: string;
  last_name?: string;
  custom_fields: Record<string, unknown>;
}

/** A custom value as a form posts it (text) in the type its field holds. */
function customValue(def: FieldDefinition, raw: string): unknown {
  if (def.type === 'number') return raw === '' ? Number.NaN : Number(raw);
  if (def.type === 'boolean') return raw === 'true' || raw === 'on' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : raw;
  return raw;
}

/** The one value a field was given (a form-encoded field sent twice keeps its first value; JSON may send non-strings for custom fields). */
function valueOf(raw: unknown): string | undefined {
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v.trim() : String(v);
}

/**
 * A submission's values checked against the form: required ones present, email and phone as a
 * contact's, custom values by their definitions; unknown names are refused. A 400 names each field.
 */
export function submittedContact(form: FormDefinition, values: Record<string, unknown>, definitions: readonly FieldDefinition[]): SubmittedContact {
  const issues: Issue[] = [];
  const asked = new Set(form.fields.map((f) => f.name));
  for (const name of Object.keys(values)) if (!asked.has(name)) issues.push({ path: name, message: 'this form has no such field' });
  const out: SubmittedContact = { custom_fields: {} };
  const custom = new Map(definitions.map((d) => [d.key, d]));
  for (const field of form.fields) {
    const raw = valueOf(values[field.name]);
    if (raw === undefined || raw === '') {
      if (field.required) issues.push({ path: field.name, message: `${field.label} is required` });
      continue;
    }
    if (field.name === 'email' || field.name === 'phone') {
      const parsed = (field.name === 'email' ? EmailSchema : PhoneSchema).safeParse(raw);
      if (!parsed.success) issues.push({ path: field.name, message: parsed.error.issues[0]?.message ?? 'invalid' });
      else out[field.name] = parsed.data;
    } else if (field.name === 'first_name' || field.name === 'last_name') {
      if (raw.length > 200) issues.push({ path: field.name, message: 'must be at most 200 characters' });
      else out[field.name] = raw;
    } else {
      const def = custom.get(field.name);
      // a custom field removed since the form was made is not asked any more
      if (!def) continue;
      const value = customValue(def, raw);
      const problem = checkCustomValue(def, value);
      if (problem) issues.push({ path: field.name, message: problem });
      else out.custom_fields[field.name] = value;
    }
  }
  if (issues.length) throw invalid(issues);
  return out;
}
