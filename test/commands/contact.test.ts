// The contact decider's rules (commands/contact.ts): creating, updating (only what changes),
// deleting, bounces, account isolation, the type rules for custom field values, and tracked events
// (only a live contact of the account tracks one, at most 24 h ahead; they change nothing of it).
import { describe, expect, it } from 'vitest';
import { contactDecider, type ContactEvent, type ContactFields } from '../../commands/contact.ts';
import type { FieldDefinition, FieldType } from '../../commands/custom-fields.ts';
import { fold } from '../../src/decider.ts';
import { AppError } from '../../src/errors.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(contactDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const accountId = 'acct_1';
const base = { account_id: accountId, id: 'ct_1' };
const field = (key: string, type: FieldType, options?: string[]): FieldDefinition => ({ id: `cf_${key}`, key, label: key, type, ...(options ? { options } : {}), created_at: iso(0) });
const definitions = [field('plan', 'text'), field('score', 'number'), field('vip', 'boolean'), field('birthday', 'date'), field('tier', 'select', ['gold', 'silver'])];

const created: ContactEvent = {
  type: 'ContactCreated',
  data: { ...base, fields: { email: 'ada@example.com', first_name: 'Ada', tags: ['a'] }, custom_fields: { plan: 'pro' }, created_at: iso(0) },
};
const deleted: ContactEvent = { type: 'ContactDeleted', data: { ...base, deleted_at: iso(1) } };
const create = (custom: Record<string, unknown>) => ({ type: 'CreateContact' as const, accountId, id: 'ct_1', fields: { email: 'ada@example.com' }, custom, definitions, now: at(0) });
const update = (changes: ContactFields, custom: Record<string, unknown> = {}, minutes = 5) => ({ type: 'UpdateContact' as const, accountId, changes, custom, definitions, now: at(minutes) });
const updated = (changes: ContactFields, custom_fields: Record<string, unknown> = {}, minutes = 5): ContactEvent => ({ type: 'ContactUpdated', data: { ...base, changes, custom_fields, updated_at: iso(minutes) } });
/** a 400 validation_error whose issues name exactly these paths */
const invalidAt =
  (...paths: string[]) =>
  (e: AppError) =>
    e.statusCode === 400 && e.code === 'validation_error' && JSON.stringify((e.extra.issues as { path: string }[]).map((i) => i.path)) === JSON.stringify(paths);

describe('creating a contact', () => {
  it('a contact is created with its standard fields and custom values', () => {
    given([])
      .when({ type: 'CreateContact', accountId, id: 'ct_1', fields: created.data.fields, custom: { plan: 'pro' }, definitions, now: at(0) })
      .then([created]);
  });

  it('a contact is created only once, and a deleted contact is not created again', () => {
    given([created]).when(create({})).thenThrows(domainError('conflict', 409));
    given([created, deleted]).when(create({})).thenThrows(domainError('conflict', 409));
  });

  it('a custom value needs a defined field', () => {
    given([]).when(create({ nickname: 'x' })).thenThrows(AppError, invalidAt('custom_fields.nickname'));
  });

  it('a new contact cannot set a custom value to null', () => {
    given([]).when(create({ plan: null })).thenThrows(AppError, invalidAt('custom_fields.plan'));
  });

  it('every wrong custom value is reported at once', () => {
    given([]).when(create({ score: 'high', nickname: 'x', vip: 'yes' })).thenThrows(AppError, invalidAt('custom_fields.score', 'custom_fields.nickname', 'custom_fields.vip'));
  });
});

describe('custom field values follow their field type', () => {
  const accepted = (custom: Record<string, unknown>) => given([]).when(create(custom)).then([{ type: 'ContactCreated', data: { ...base, fields: { email: 'ada@example.com' }, custom_fields: custom, created_at: iso(0) } }]);
  const refused = (key: string, value: unknown) => given([]).when(create({ [key]: value })).thenThrows(AppError, invalidAt(`custom_fields.${key}`));

  it('text: a string of at most 10000 characters', () => {
    accepted({ plan: '' });
    accepted({ plan: 'x'.repeat(10_000) });
    refused('plan', 'x'.repeat(10_001));
    refused('plan', 42);
  });

  it('number: a finite number, not a numeric string', () => {
    accepted({ score: 0 });
    accepted({ score: -1.5 });
    refused('score', '5');
    refused('score', Number.NaN);
    refused('score', Number.POSITIVE_INFINITY);
  });

  it('boolean: true or false, nothing truthy', () => {
    accepted({ vip: true });
    accepted({ vip: false });
    refused('vip', 'true');
    refused('vip', 1);
  });

  it('date: a real calendar date or an RFC 3339 date-time with an offset', () => {
    accepted({ birthday: '1815-12-10' });
    accepted({ birthday: '0001-01-01' });
    accepted({ birthday: '2026-03-01T10:00:00+01:00' });
    refused('birthday', '2026-02-30');
    refused('birthday', '0000-12-31');
    refused('birthday', '2026-03-01T10:00:00');
    refused('birthday', '2026-03-01T10:00:00+15:00');
    refused('birthday', '10/12/1815');
    refused('birthday', 20260301);
  });

  it('select: one of the options', () => {
    accepted({ tier: 'gold' });
    refused('tier', 'bronze');
    refused('tier', ['gold']);
  });
});

describe('updating a contact', () => {
  it('only the fields that change are recorded', () => {
    given([created]).when(update({ email: 'ada@example.com', first_name: 'Augusta', last_name: 'King' })).then([updated({ first_name: 'Augusta', last_name: 'King' })]);
  });

  it('an update that changes nothing records nothing', () => {
    given([created]).when(update({ email: 'ada@example.com', tags: ['a'] }, { plan: 'pro' })).thenNothingHappened();
    given([created]).when(update({ phone: null }, { score: null })).thenNothingHappened();
  });

  it('tags are compared as a list: a different list is a change', () => {
    given([created]).when(update({ tags: ['a', 'b'] })).then([updated({ tags: ['a', 'b'] })]);
  });

  it('a field is cleared with null', () => {
    given([created]).when(update({ first_name: null })).then([updated({ first_name: null })]);
  });

  it('custom values are set, changed and removed (null), and the update records only those', () => {
    given([created]).when(update({}, { plan: 'team', score: 7 })).then([updated({}, { plan: 'team', score: 7 })]);
    given([created]).when(update({}, { plan: null })).then([updated({}, { plan: null })]);
  });

  it('a custom value can be removed even when its field is no longer defined', () => {
    given([created]).when({ ...update({}, { plan: null }), definitions: [] }).then([updated({}, { plan: null })]);
  });

  it('a changed custom value must match its definition', () => {
    given([created]).when(update({}, { score: 'many' })).thenThrows(AppError, invalidAt('custom_fields.score'));
    given([created]).when(update({}, { nickname: 'x' })).thenThrows(AppError, invalidAt('custom_fields.nickname'));
  });

  it('a later update sees the earlier ones', () => {
    given([created, updated({ first_name: 'Augusta' }, { plan: null, score: 7 })])
      .when(update({ first_name: 'Augusta' }, { plan: null, score: 7 }, 6))
      .thenNothingHappened();
  });
});

describe('deleting a contact', () => {
  it('a contact is deleted', () => {
    given([created]).when({ type: 'DeleteContact', accountId, now: at(1) }).then([deleted]);
  });
});

describe('bounces', () => {
  it('a bounce is recorded against the contact, with the message that bounced', () => {
    given([created])
      .when({ type: 'RecordBounce', accountId, email: 'ada@example.com', reason: 'mailbox full', messageId: 'msg_1', now: at(2) })
      .then([{ type: 'ContactBounced', data: { ...base, email: 'ada@example.com', reason: 'mailbox full', message_id: 'msg_1', at: iso(2) } }]);
  });

  it('a bounce without a message is recorded without one', () => {
    given([created])
      .when({ type: 'RecordBounce', accountId, email: 'ada@example.com', reason: 'no such user', now: at(2) })
      .then([{ type: 'ContactBounced', data: { ...base, email: 'ada@example.com', reason: 'no such user', at: iso(2) } }]);
  });
});

describe('a contact that is missing, deleted or in another account', () => {
  const commands = [
    update({ first_name: 'X' }),
    { type: 'DeleteContact' as const, accountId, now: at(5) },
    { type: 'RecordBounce' as const, accountId, email: 'ada@example.com', reason: 'x', now: at(5) },
  ];

  it('cannot be updated, deleted or bounced: 404', () => {
    for (const command of commands) {
      given([]).when(command).thenThrows(domainError('not_found', 404));
      given([created, deleted]).when(command).thenThrows(domainError('not_found', 404));
    }
  });

  it("another account's contact is exactly as invisible as a missing one", () => {
    for (const command of commands) given([created]).when({ ...command, accountId: 'acct_2' }).thenThrows(domainError('not_found', 404));
  });
});

describe('erasing a contact (right to erasure)', () => {
  const erase = (accountOf = accountId, minutes = 10) => ({
    type: 'EraseContact' as const, accountId: accountOf, erasureId: 'er_1', keyIds: ['dk_1', 'dk_2'], addressHashes: ['h1'], reason: 'asked by the person', erasedBy: 'key_1', now: at(minutes),
  });
  const erased: ContactEvent = {
    type: 'ContactErased',
    data: { ...base, erasure_id: 'er_1', key_ids: ['dk_1', 'dk_2'], address_hashes: ['h1'], reason: 'asked by the person', erased_by: 'key_1', erased_at: iso(10) },
  };

  it('a contact is erased with who, when, why and which keys, and no personal data', () => {
    given([created]).when(erase()).then([erased]);
  });

  it('a deleted contact can still be erased: its events still hold its data', () => {
    given([created, deleted]).when(erase()).then([erased]);
  });

  it('erasing again changes nothing', () => {
    given([created, erased]).when(erase(accountId, 20)).thenNothingHappened();
  });

  it('a missing contact, or another account\'s, cannot be erased: 404', () => {
    given([]).when(erase()).thenThrows(domainError('not_found', 404));
    given([created]).when(erase('acct_2')).thenThrows(domainError('not_found', 404));
  });

  it('an erased contact is gone: no update, delete or bounce (404), and its id is never created again (409)', () => {
    given([created, erased]).when(update({ first_name: 'Grace' })).thenThrows(domainError('not_found', 404));
    given([created, erased]).when({ type: 'DeleteContact', accountId, now: at(11) }).thenThrows(domainError('not_found', 404));
    given([created, erased]).when({ type: 'RecordBounce', accountId, email: 'ada@example.com', reason: 'x', now: at(11) }).thenThrows(domainError('not_found', 404));
    given([created, erased]).when(create({})).thenThrows(domainError('conflict', 409));
    given([created, erased]).when(track()).thenThrows(domainError('not_found', 404));
  });
});

const track = (over: Partial<{ accountId: string; timestamp: string }> = {}) => ({
  type: 'TrackEvent' as const, accountId, eventId: 'order-1', name: 'Order Completed', properties: { total: 42 }, timestamp: iso(-30), now: at(5), ...over,
});
const tracked = (timestamp = iso(-30)): ContactEvent => ({
  type: 'EventTracked',
  data: { account_id: accountId, contact_id: 'ct_1', event_id: 'order-1', name: 'Order Completed', properties: { total: 42 }, timestamp, received_at: iso(5) },
});

describe('tracking an event', () => {
  it('a live contact tracks the event with its name, properties, time and the time it was received', () => {
    given([created]).when(track()).then([tracked()]);
  });

  it('the timestamp is stored in UTC, whatever offset it was given with', () => {
    given([created]).when(track({ timestamp: '2026-03-01T11:30:00+02:00' })).then([tracked('2026-03-01T09:30:00.000Z')]);
  });

  it('a timestamp up to 24 hours ahead is accepted (clocks drift); further ahead is refused naming the field', () => {
    const ahead = (ms: number) => new Date(at(5).getTime() + ms).toISOString();
    given([created]).when(track({ timestamp: ahead(24 * 3600_000) })).then([tracked(ahead(24 * 3600_000))]);
    given([created]).when(track({ timestamp: ahead(24 * 3600_000 + 1) })).thenThrows(AppError, invalidAt('timestamp'));
  });

  it('a missing, deleted or other account’s contact is not found', () => {
    given([]).when(track()).thenThrows(domainError('not_found', 404));
    given([created, deleted]).when(track()).thenThrows(domainError('not_found', 404));
    given([created]).when(track({ accountId: 'acct_2' })).thenThrows(domainError('not_found', 404));
  });

  it('the same event may be tracked again (the API, not the decider, keeps client ids unique)', () => {
    given([created, tracked()]).when(track()).then([tracked()]);
  });

  it('changes nothing of the contact: the state after a thousand events is the state before them', () => {
    expect(fold(contactDecider, [created, ...Array.from({ length: 1000 }, () => tracked())])).toStrictEqual(fold(contactDecider, [created]));
  });

  it('a contact that tracked events is updated and deleted as any other', () => {
    given([created, tracked()]).when(update({ first_name: 'Grace' })).then([updated({ first_name: 'Grace' })]);
    given([created, tracked()]).when({ type: 'DeleteContact', accountId, now: at(7) }).then([{ type: 'ContactDeleted', data: { ...base, deleted_at: iso(7) } }]);
  });
});

describe('push devices (README "Push devices")', () => {
  const registered = (deviceId: string, token: string, minutes: number, extra: { platform?: 'ios' | 'android' | 'web'; app_id?: string } = {}): ContactEvent => ({
    type: 'ContactDeviceRegistered',
    data: { ...base, device_id: deviceId, token, platform: extra.platform ?? 'ios', ...(extra.app_id ? { app_id: extra.app_id } : {}), at: iso(minutes) },
  });
  const removed = (deviceId: string, reason: 'removed' | 'unregistered' | 'replaced', minutes: number): ContactEvent => ({ type: 'ContactDeviceRemoved', data: { ...base, device_id: deviceId, reason, at: iso(minutes) } });
  const register = (deviceId: string, token: string, minutes: number, platform: 'ios' | 'android' | 'web' = 'ios', appId?: string) =>
    ({ type: 'RegisterDevice' as const, accountId, deviceId, token, platform, ...(appId ? { appId } : {}), now: at(minutes) });

  it('a live contact registers a device; the same token again appends nothing, and changes only when its platform or app does', () => {
    given([created]).when(register('dev_1', 'tok-00000001', 1)).then([registered('dev_1', 'tok-00000001', 1)]);
    given([created, registered('dev_1', 'tok-00000001', 1)]).when(register('dev_2', 'tok-00000001', 2)).then([]);
    given([created, registered('dev_1', 'tok-00000001', 1)]).when(register('dev_2', 'tok-00000001', 2, 'android', 'com.acme')).then([registered('dev_1', 'tok-00000001', 2, { platform: 'android', app_id: 'com.acme' })]);
  });

  it('a deleted, missing or other account’s contact registers nothing', () => {
    given([created, deleted]).when(register('dev_1', 'tok-00000001', 2)).thenThrows(domainError('not_found', 404));
    given([]).when(register('dev_1', 'tok-00000001', 2)).thenThrows(domainError('not_found', 404));
    given([created]).when({ ...register('dev_1', 'tok-00000001', 2), accountId: 'acct_2' }).thenThrows(domainError('not_found', 404));
  });

  it('the 51st device removes the oldest (replaced) first', () => {
    const fifty = Array.from({ length: 50 }, (_, i) => registered(`dev_${i}`, `tok-${String(i).padStart(8, '0')}`, i + 1));
    given([created, ...fifty]).when(register('dev_new', 'tok-new-00001', 60)).then([removed('dev_0', 'replaced', 60), registered('dev_new', 'tok-new-00001', 60)]);
  });

  it('removes a device it has (404 otherwise), and a token it has (nothing otherwise)', () => {
    const withDevice = [created, registered('dev_1', 'tok-00000001', 1)];
    given(withDevice).when({ type: 'RemoveDevice', accountId, deviceId: 'dev_1', now: at(2) }).then([removed('dev_1', 'removed', 2)]);
    given(withDevice).when({ type: 'RemoveDevice', accountId, deviceId: 'dev_9', now: at(2) }).thenThrows(domainError('not_found', 404));
    given(withDevice).when({ type: 'RemoveDeviceToken', accountId, token: 'tok-00000001', reason: 'unregistered', now: at(2) }).then([removed('dev_1', 'unregistered', 2)]);
    given([...withDevice, removed('dev_1', 'replaced', 2)]).when({ type: 'RemoveDeviceToken', accountId, token: 'tok-00000001', reason: 'unregistered', now: at(3) }).then([]);
    // a deleted contact's devices went with it
    given([...withDevice, deleted]).when({ type: 'RemoveDeviceToken', accountId, token: 'tok-00000001', reason: 'unregistered', now: at(3) }).then([]);
  });
});

describe('consent from a signup form (README "Signup forms")', () => {
  const consent = {
    form_id: 'frm_1', submission_id: 'fsub_1', list_id: 'lst_1', method: 'double_opt_in' as const, text: 'I agree to the newsletter.',
    ip: '203.0.113.9', user_agent: 'Mozilla/5.0', submitted_at: iso(1),
  };
  const record = (minutes: number, accountId_ = accountId) => ({ type: 'RecordConsent' as const, accountId: accountId_, consent, now: at(minutes) });
  const recorded: ContactEvent = { type: 'ContactConsentRecorded', data: { ...base, ...consent, at: iso(2) } };

  it('is recorded once per submission: a confirmation repeated records nothing more', () => {
    given([created]).when(record(2)).then([recorded]);
    given([created, recorded]).when(record(3)).thenNothingHappened();
    given([created, recorded]).when({ ...record(3), consent: { ...consent, submission_id: 'fsub_2' } }).then([{ type: 'ContactConsentRecorded', data: { ...base, ...consent, submission_id: 'fsub_2', at: iso(3) } }]);
  });

  it('is refused for a deleted, missing or other account’s contact', () => {
    given([created, deleted]).when(record(2)).thenThrows(domainError('not_found', 404));
    given([]).when(record(2)).thenThrows(domainError('not_found', 404));
    given([created]).when(record(2, 'acct_2')).thenThrows(domainError('not_found', 404));
  });
});
