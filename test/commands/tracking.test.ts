// The tracking decider's rules (commands/tracking.ts): the key and its first identity secret are
// issued together, once, by whichever command comes first; origins and the identity requirement
// change only when they differ; a rotation always issues a new secret; a signed identity is
// required by default.
import { describe, expect, it } from 'vitest';
import { type TrackingCommand, type TrackingEvent, trackingDecider } from '../../commands/tracking.ts';
import { fold } from '../../src/decider.ts';
import { DeciderSpecification } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(trackingDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const account_id = 'acct_1';
const fresh = (n: number) => ({ publicKey: `etk_${n}`, secretSealed: `sealed-${n}` });
const base = (minutes: number, n = 9) => ({ accountId: account_id, fresh: fresh(n), now: at(minutes) });

const keyIssued = (minutes: number, n = 1): TrackingEvent => ({ type: 'TrackingKeyIssued', data: { account_id, public_key: `etk_${n}`, at: iso(minutes) } });
const secretIssued = (minutes: number, sealed: string, rotated: boolean): TrackingEvent => ({
  type: 'TrackingIdentitySecretIssued',
  data: { account_id, secret_sealed: sealed, rotated, at: iso(minutes) },
});
const originsSet = (minutes: number, origins: string[]): TrackingEvent => ({ type: 'TrackingOriginsSet', data: { account_id, origins, at: iso(minutes) } });
const requirementSet = (minutes: number, require_identity: boolean): TrackingEvent => ({
  type: 'TrackingIdentityRequirementSet',
  data: { account_id, require_identity, at: iso(minutes) },
});
const issued = (minutes: number, n = 1) => [keyIssued(minutes, n), secretIssued(minutes, `sealed-${n}`, false)];

describe('issuing the tracking key', () => {
  it('the first request issues the key and its identity secret together', () => {
    given([]).when({ type: 'EnsureTrackingKey', ...base(0, 1) }).then(issued(0, 1));
  });

  it('is idempotent: a later (or concurrent, re-decided) request issues nothing and keeps the first key', () => {
    given(issued(0, 1)).when({ type: 'EnsureTrackingKey', ...base(5, 2) }).thenNothingHappened();
    const state = fold(trackingDecider, issued(0, 1));
    expect(state).toMatchObject({ exists: true, publicKey: 'etk_1', secretSealed: 'sealed-1' });
  });

  it('requires a signed identity by default and accepts any origin', () => {
    expect(fold(trackingDecider, issued(0))).toMatchObject({ requireIdentity: true, origins: [] });
  });

  it('any first command issues the key before what it asks', () => {
    given([]).when({ type: 'SetTrackingOrigins', origins: ['https://shop.example'], ...base(0, 1) }).then([...issued(0, 1), originsSet(0, ['https://shop.example'])]);
    given([]).when({ type: 'SetIdentityRequirement', requireIdentity: false, ...base(0, 1) }).then([...issued(0, 1), requirementSet(0, false)]);
    given([])
      .when({ type: 'RotateIdentitySecret', secretSealed: 'sealed-new', ...base(0, 1) })
      .then([...issued(0, 1), secretIssued(0, 'sealed-new', true)]);
  });

  it('a first command that changes nothing issues the key only', () => {
    given([]).when({ type: 'SetTrackingOrigins', origins: [], ...base(0, 1) }).then(issued(0, 1));
    given([]).when({ type: 'SetIdentityRequirement', requireIdentity: true, ...base(0, 1) }).then(issued(0, 1));
  });
});

describe('allowed origins', () => {
  it('are replaced whole, and cleared with an empty list', () => {
    given(issued(0)).when({ type: 'SetTrackingOrigins', origins: ['https://a.example', 'http://localhost:8080'], ...base(1) }).then([originsSet(1, ['https://a.example', 'http://localhost:8080'])]);
    given([...issued(0), originsSet(1, ['https://a.example'])]).when({ type: 'SetTrackingOrigins', origins: [], ...base(2) }).then([originsSet(2, [])]);
  });

  it('the same list again changes nothing', () => {
    given([...issued(0), originsSet(1, ['https://a.example', 'https://b.example'])])
      .when({ type: 'SetTrackingOrigins', origins: ['https://a.example', 'https://b.example'], ...base(2) })
      .thenNothingHappened();
  });

  it('the same origins in another order are a change (the list is kept as given)', () => {
    given([...issued(0), originsSet(1, ['https://a.example', 'https://b.example'])])
      .when({ type: 'SetTrackingOrigins', origins: ['https://b.example', 'https://a.example'], ...base(2) })
      .then([originsSet(2, ['https://b.example', 'https://a.example'])]);
  });
});

describe('the identity requirement and secret', () => {
  it('turning the requirement off and on again is recorded; the same value again is not', () => {
    given(issued(0)).when({ type: 'SetIdentityRequirement', requireIdentity: false, ...base(1) }).then([requirementSet(1, false)]);
    given([...issued(0), requirementSet(1, false)]).when({ type: 'SetIdentityRequirement', requireIdentity: false, ...base(2) }).thenNothingHappened();
    given([...issued(0), requirementSet(1, false)]).when({ type: 'SetIdentityRequirement', requireIdentity: true, ...base(2) }).then([requirementSet(2, true)]);
    given(issued(0)).when({ type: 'SetIdentityRequirement', requireIdentity: true, ...base(1) }).thenNothingHappened();
  });

  it('a rotation always issues a new secret, which the state then holds', () => {
    const rotate: TrackingCommand = { type: 'RotateIdentitySecret', secretSealed: 'sealed-2', ...base(3) };
    given(issued(0)).when(rotate).then([secretIssued(3, 'sealed-2', true)]);
    given([...issued(0), secretIssued(3, 'sealed-2', true)]).when({ ...rotate, secretSealed: 'sealed-3', now: at(4) }).then([secretIssued(4, 'sealed-3', true)]);
    expect(fold(trackingDecider, [...issued(0), secretIssued(3, 'sealed-2', true)]).secretSealed).toBe('sealed-2');
  });
});
