// The template aggregate (stream template-<id>): a message written once in Liquid, for one channel,
// kept with every version it had (README "Templates"). A change is a new version holding the whole
// content, so any version can be read, previewed or sent from its own event; deleting a template
// keeps its history.
//
// The content arrives checked: that each part parses as Liquid is judged by the service before the
// command (src/templates/liquid.ts), as it needs the template engine, not the stream.
import type { Decider } from '../src/decider.ts';
import { AppError, notFound } from '../src/errors.ts';
import type { Channel } from './message.ts';

/** What a version of a template holds. */
export interface TemplateContent {
  name: string;
  /** email only: the subject line, in Liquid */
  subject: string | null;
  /** the plain text (sms, whatsapp…: the message; email: the plain-text part), in Liquid */
  text: string;
  /** email only: the HTML part, in Liquid (its output escaped by default) */
  html: string | null;
}

export type TemplateEvent =
  | { type: 'TemplateCreated'; data: { account_id: string; id: string; channel: Channel; version: 1; created_at: string } & TemplateContent }
  | { type: 'TemplateVersionCreated'; data: { account_id: string; id: string; version: number; created_at: string } & TemplateContent }
  | { type: 'TemplateDeleted'; data: { account_id: string; id: string; deleted_at: string } };

export interface TemplateState {
  status: 'none' | 'active' | 'deleted';
  id?: string;
  accountId?: string;
  channel?: Channel;
  /** the newest version's number and content */
  version: number;
  content?: TemplateContent;
  createdAt?: string;
  updatedAt?: string;
}

export type TemplateCommand =
  | ({ type: 'CreateTemplate'; accountId: string; id: string; channel: Channel; now: Date } & TemplateContent)
  /** a new version: the content as the request leaves it (the fields it names changed, the others kept) */
  | ({ type: 'ReviseTemplate'; accountId: string; now: Date } & TemplateContent)
  | { type: 'DeleteTemplate'; accountId: string; now: Date };

function visible(state: TemplateState, accountId: string) {
  // another account's template is exactly as invisible as a missing one
  if (state.status !== 'active' || state.accountId !== accountId) throw notFound('template');
}

const contentOf = (c: TemplateContent): TemplateContent => ({ name: c.name, subject: c.subject, text: c.text, html: c.html });
const sameContent = (a: TemplateContent | undefined, b: TemplateContent) =>
  a !== undefined && a.name === b.name && a.subject === b.subject && a.text === b.text && a.html === b.html;

export const templateDecider: Decider<TemplateCommand, TemplateState, TemplateEvent> = {
  initialState: { status: 'none', version: 0 },
  evolve(state, event) {
    switch (event.type) {
      case 'TemplateCreated':
        return {
          status: 'active', id: event.data.id, accountId: event.data.account_id, channel: event.data.channel, version: 1,
          content: contentOf(event.data), createdAt: event.data.created_at, updatedAt: event.data.created_at,
        };
      case 'TemplateVersionCreated':
        return { ...state, version: event.data.version, content: contentOf(event.data), updatedAt: event.data.created_at };
      case 'TemplateDeleted':
        return { ...state, status: 'deleted', updatedAt: event.data.deleted_at };
    }
  },
  decide(command, state) {
    const at = command.now.toISOString();
    switch (command.type) {
      case 'CreateTemplate':
        if (state.status !== 'none') throw new AppError(409, 'conflict', 'template already exists');
        return [{ type: 'TemplateCreated', data: { account_id: command.accountId, id: command.id, channel: command.channel, version: 1, ...contentOf(command), created_at: at } }];
      case 'ReviseTemplate':
        visible(state, command.accountId);
        // a change to what is there already makes no version
        if (sameContent(state.content, command)) return [];
        return [{ type: 'TemplateVersionCreated', data: { account_id: command.accountId, id: state.id!, version: state.version + 1, ...contentOf(command), created_at: at } }];
      case 'DeleteTemplate':
        visible(state, command.accountId);
        return [{ type: 'TemplateDeleted', data: { account_id: command.accountId, id: state.id!, deleted_at: at } }];
    }
  },
};

export const templateStream = (id: string) => `template-${id}`;
export const TEMPLATE_EVENT_TYPES = ['TemplateCreated', 'TemplateVersionCreated', 'TemplateDeleted'] as const;
