// The platform-event webhook endpoint decider's rules (commands/webhook-endpoint.ts): creating an
// endpoint (active, secret sealed), updating only what changes, disabling, deleting, account isolation.
import { describe, it } from 'vitest';
import { webhookEndpointDecider, type WebhookEndpointEvent } from '../../commands/webhook-endpoint.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(webhookEndpointDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const accountId = 'acct_1';
const endpoint = { id: 'we_1', account_id: accountId };
const created: WebhookEndpointEvent = {
  type: 'WebhookEndpointCreated',
  data: { ...endpoint, url: 'https://hooks.example.com/a', events: ['message.delivered'], secret_sealed: 'sealed-1', status: 'active', created_at: iso(0) },
};
const deleted: WebhookEndpointEvent = { type: 'WebhookEndpointDeleted', data: { ...endpoint, deleted_at: iso(1) } };
const update = (change: { url?: string; events?: ('message.delivered' | 'message.failed')[]; status?: 'active' | 'disabled' }, minutes = 5) => ({ type: 'Update' as const, accountId, ...change, now: at(minutes) });
const updated = (change: object, minutes = 5): WebhookEndpointEvent => ({ type: 'WebhookEndpointUpdated', data: { ...endpoint, ...change, updated_at: iso(minutes) } });

describe('creating an endpoint', () => {
  it('an endpoint is created active, with its url, events and sealed secret', () => {
    given([])
      .when({ type: 'Create', id: 'we_1', accountId, url: 'https://hooks.example.com/a', events: ['message.delivered'], secretSealed: 'sealed-1', now: at(0) })
      .then([created]);
  });

  it('an endpoint is created once: its stream already holding one is a 409, deleted or not', () => {
    const create = { type: 'Create' as const, id: 'we_1', accountId, url: 'https://hooks.example.com/a', events: ['message.delivered' as const], secretSealed: 'sealed-2', now: at(2) };
    given([created]).when(create).thenThrows(domainError('conflict', 409));
    given([created, deleted]).when(create).thenThrows(domainError('conflict', 409));
  });
});

describe('updating an endpoint', () => {
  it('a new url is recorded', () => {
    given([created]).when(update({ url: 'https://hooks.example.com/b' })).then([updated({ url: 'https://hooks.example.com/b' })]);
  });

  it('a new event list is recorded', () => {
    given([created]).when(update({ events: ['message.delivered', 'message.failed'] })).then([updated({ events: ['message.delivered', 'message.failed'] })]);
  });

  it('an endpoint is disabled and enabled again through its status', () => {
    given([created]).when(update({ status: 'disabled' })).then([updated({ status: 'disabled' })]);
    given([created, updated({ status: 'disabled' })]).when(update({ status: 'active' }, 6)).then([updated({ status: 'active' }, 6)]);
  });

  it('only what changes is recorded', () => {
    given([created]).when(update({ url: 'https://hooks.example.com/a', status: 'disabled' })).then([updated({ status: 'disabled' })]);
  });

  it('an update that changes nothing records nothing', () => {
    given([created]).when(update({ url: 'https://hooks.example.com/a', events: ['message.delivered'], status: 'active' })).thenNothingHappened();
    given([created]).when(update({})).thenNothingHappened();
  });

  it('a later update sees the earlier ones', () => {
    given([created, updated({ url: 'https://hooks.example.com/b' })]).when(update({ url: 'https://hooks.example.com/b' }, 6)).thenNothingHappened();
  });
});

describe('deleting an endpoint', () => {
  it('an endpoint is deleted', () => {
    given([created]).when({ type: 'Delete', accountId, now: at(1) }).then([deleted]);
  });
});

describe('an endpoint that is missing, deleted or in another account', () => {
  it("cannot be updated or deleted: 404, another account's endpoint being exactly as invisible as a missing one", () => {
    const callers = [
      { history: [], caller: accountId },
      { history: [created, deleted], caller: accountId },
      { history: [created], caller: 'acct_2' },
    ];
    for (const { history, caller } of callers) {
      given(history).when({ ...update({ status: 'disabled' }), accountId: caller }).thenThrows(domainError('not_found', 404));
      given(history).when({ type: 'Delete', accountId: caller, now: at(5) }).thenThrows(domainError('not_found', 404));
    }
  });
});
