// The integration decider's rules (commands/integration.ts): an integration is created once, with
// its credentials sealed as the command gave them; it is removed once, by its own account only —
// another account's integration, a missing one and a removed one all answer not found.
import { describe, expect, it } from 'vitest';
import { type IntegrationEvent, type IntegrationRecord, integrationDecider } from '../../commands/integration.ts';
import { fold } from '../../src/decider.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(integrationDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const account_id = 'acct_1';
const record: Omit<IntegrationRecord, 'created_at'> = {
  id: 'int_1',
  account_id,
  provider: 'twilio',
  channel: 'sms',
  name: 'Twilio main',
  credentials_sealed: 'sealed-credentials',
  hint: 'AC…1234',
};
const create = { type: 'Create' as const, record, now: at(0) };
const remove = (accountId = account_id) => ({ type: 'Remove' as const, accountId, now: at(9) });
const created: IntegrationEvent = { type: 'IntegrationCreated', data: { ...record, created_at: iso(0) } };
const removed: IntegrationEvent = { type: 'IntegrationRemoved', data: { id: 'int_1', account_id, removed_at: iso(9) } };

describe('creating an integration', () => {
  it('records it with its sealed credentials, hint and creation time', () => {
    given([]).when(create).then([created]);
    expect(fold(integrationDecider, [created])).toEqual({ exists: true, removed: false, record: created.data });
  });

  it('is refused for an id that exists already (a conflict), removed or not', () => {
    given([created]).when({ ...create, now: at(5) }).thenThrows(domainError('conflict', 409));
    given([created, removed]).when({ ...create, now: at(10) }).thenThrows(domainError('conflict', 409));
  });
});

describe('removing an integration', () => {
  it('records the removal by its own account', () => {
    given([created]).when(remove()).then([removed]);
    expect(fold(integrationDecider, [created, removed])).toMatchObject({ exists: true, removed: true });
  });

  it('answers not found for one that does not exist', () => {
    given([]).when(remove()).thenThrows(domainError('not_found', 404));
  });

  it('answers not found for one removed already', () => {
    given([created, removed]).when(remove()).thenThrows(domainError('not_found', 404));
  });

  it("answers another account's integration exactly like a missing one", () => {
    given([created]).when(remove('acct_2')).thenThrows(domainError('not_found', 404));
  });
});
