// The template decider's rules (commands/template.ts): creating, a new version on each change (none
// when nothing changes), deleting, and account isolation.
import { describe, it } from 'vitest';
import { type TemplateContent, type TemplateEvent, templateDecider } from '../../commands/template.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(templateDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const accountId = 'acct_1';
const base = { account_id: accountId, id: 'tpl_1' };
const welcome: TemplateContent = { name: 'Welcome', subject: 'Hi {{ contact.first_name }}', text: 'Hello {{ contact.first_name | default: "there" }}', html: null };
const created: TemplateEvent = { type: 'TemplateCreated', data: { ...base, channel: 'email', version: 1, ...welcome, created_at: iso(0) } };
const deleted: TemplateEvent = { type: 'TemplateDeleted', data: { ...base, deleted_at: iso(9) } };
const revise = (content: Partial<TemplateContent>, acct = accountId, minutes = 5) => ({ type: 'ReviseTemplate' as const, accountId: acct, now: at(minutes), ...welcome, ...content });
const notFoundTemplate = (e: unknown) => domainError('not_found', 404)(e) !== false && (e as Error).message === 'template not found';

describe('creating a template', () => {
  it('is version 1, with its channel and content', () => {
    given([]).when({ type: 'CreateTemplate', accountId, id: 'tpl_1', channel: 'email', now: at(0), ...welcome }).then([created]);
  });

  it('is created only once, and a deleted one is not created again', () => {
    const again = { type: 'CreateTemplate' as const, accountId, id: 'tpl_1', channel: 'sms' as const, now: at(5), ...welcome };
    given([created]).when(again).thenThrows(domainError('conflict', 409));
    given([created, deleted]).when(again).thenThrows(domainError('conflict', 409));
  });
});

describe('changing a template', () => {
  it('makes the next version, holding the whole content', () => {
    given([created])
      .when(revise({ text: 'Welcome aboard, {{ contact.first_name }}' }))
      .then([{ type: 'TemplateVersionCreated', data: { ...base, version: 2, ...welcome, text: 'Welcome aboard, {{ contact.first_name }}', created_at: iso(5) } }]);
    const v2: TemplateEvent = { type: 'TemplateVersionCreated', data: { ...base, version: 2, ...welcome, name: 'Hello', created_at: iso(5) } };
    given([created, v2])
      .when(revise({ name: 'Hello', html: '<p>Hi</p>' }, accountId, 7))
      .then([{ type: 'TemplateVersionCreated', data: { ...base, version: 3, ...welcome, name: 'Hello', html: '<p>Hi</p>', created_at: iso(7) } }]);
  });

  it('a change to what is there already makes no version', () => {
    given([created]).when(revise({})).thenNothingHappened();
  });

  it('a missing, deleted or other account’s template is not found', () => {
    given([]).when(revise({ name: 'x' })).thenThrows(notFoundTemplate);
    given([created, deleted]).when(revise({ name: 'x' })).thenThrows(notFoundTemplate);
    given([created]).when(revise({ name: 'x' }, 'acct_2')).thenThrows(notFoundTemplate);
  });
});

describe('deleting a template', () => {
  it('deletes a live template once', () => {
    given([created]).when({ type: 'DeleteTemplate', accountId, now: at(9) }).then([deleted]);
    given([created, deleted]).when({ type: 'DeleteTemplate', accountId, now: at(10) }).thenThrows(notFoundTemplate);
  });

  it('another account cannot delete it, and a missing one is not found', () => {
    given([created]).when({ type: 'DeleteTemplate', accountId: 'acct_2', now: at(9) }).thenThrows(notFoundTemplate);
    given([]).when({ type: 'DeleteTemplate', accountId, now: at(9) }).thenThrows(notFoundTemplate);
  });
});
