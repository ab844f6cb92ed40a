// The signup form aggregate (stream form-<id>): what a form asks for, the list it adds to, whether
// it confirms by a link first (double opt-in), the confirmation message, the consent text and where
// people go afterwards; updated, and deleted (README "Signup forms").
import type { Decider } from '../src/decider.ts';
import { AppError, notFound } from '../src/errors.ts';

/** The contact fields a form may ask for besides the account's custom fields. */
export const FORM_STANDARD_FIELDS = ['email', 'phone', 'first_name', 'last_name'] as const;

export interface FormField {
  /** email, phone, first_name, last_name, or the key of one of the account's custom fields */
  name: string;
  label: string;
  required: boolean;
}

export interface FormConfirmation {
  /** how the link is sent: to the email, or by sms to the phone */
  channel: 'email' | 'sms';
  /** email only */
  subject: string | null;
  /** the message's text; `{{ confirm_url }}` is where the link goes (appended when it is not there) */
  message: string;
}

export interface FormDefinition {
  name: string;
  fields: FormField[];
  list_id: string;
  double_opt_in: boolean;
  confirmation: FormConfirmation;
  /** what the person agrees to, shown above the button and recorded with their consent */
  consent_text: string;
  /** where people go after they subscribe (after the confirmation with double opt-in) */
  redirect_url: string | null;
  /** a submission faster than this after the form was shown is a bot's */
  min_fill_seconds: number;
}

export type FormEvent =
  | { type: 'FormCreated'; data: FormDefinition & { account_id: string; id: string; created_at: string } }
  | { type: 'FormUpdated'; data: { account_id: string; id: string; changes: Partial<FormDefinition>; updated_at: string } }
  | { type: 'FormDeleted'; data: { account_id: string; id: string; deleted_at: string } };

export const FORM_EVENT_TYPES = ['FormCreated', 'FormUpdated', 'FormDeleted'] as const satisfies readonly FormEvent['type'][];

export interface FormState {
  status: 'none' | 'active' | 'deleted';
  id?: string;
  accountId?: string;
  definition?: FormDefinition;
  createdAt?: string;
  updatedAt?: string;
}

export type FormCommand =
  | { type: 'CreateForm'; accountId: string; id: string; definition: FormDefinition; now: Date }
  /** `changes` already checked against the whole definition they make (src/forms/validation.ts) */
  | { type: 'UpdateForm'; accountId: string; changes: Partial<FormDefinition>; now: Date }
  | { type: 'DeleteForm'; accountId: string; now: Date };

function visible(state: FormState, accountId: string) {
  // another account's form is exactly as invisible as a missing one
  if (state.status !== 'active' || state.accountId !== accountId) throw notFound('form');
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const formDecider: Decider<FormCommand, FormState, FormEvent> = {
  initialState: { status: 'none' },
  evolve(state, event) {
    switch (event.type) {
      case 'FormCreated': {
        const { account_id, id, created_at, ...definition } = event.data;
        return { status: 'active', id, accountId: account_id, definition, createdAt: created_at, updatedAt: created_at };
      }
      case 'FormUpdated':
        return { ...state, definition: { ...state.definition!, ...event.data.changes }, updatedAt: event.data.updated_at };
      case 'FormDeleted':
        return { ...state, status: 'deleted' };
    }
  },
  decide(command, state) {
    const at = command.now.toISOString();
    switch (command.type) {
      case 'CreateForm':
        if (state.status !== 'none') throw new AppError(409, 'conflict', 'form already exists');
        return [{ type: 'FormCreated', data: { account_id: command.accountId, id: command.id, ...command.definition, created_at: at } }];
      case 'UpdateForm': {
        visible(state, command.accountId);
        // record only what actually changes, so the history says what happened
        const changes = Object.fromEntries(
          Object.entries(command.changes).filter(([k, v]) => v !== undefined && !same(v, state.definition![k as keyof FormDefinition])),
        ) as Partial<FormDefinition>;
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'FormUpdated', data: { account_id: command.accountId, id: state.id!, changes, updated_at: at } }];
      }
      case 'DeleteForm':
        visible(state, command.accountId);
        return [{ type: 'FormDeleted', data: { account_id: command.accountId, id: state.id!, deleted_at: at } }];
    }
  },
};

export const formStream = (id: string) => `form-${id}`;
