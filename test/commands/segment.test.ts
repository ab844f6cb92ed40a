// The segment decider's rules (commands/segment.ts): creating, replacing (only when something
// changes), deleting, and account isolation.
import { describe, it } from 'vitest';
import { type SegmentEvent, type SegmentGroup, segmentDecider } from '../../commands/segment.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(segmentDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const accountId = 'acct_1';
const base = { account_id: accountId, id: 'seg_1' };
const vip: SegmentGroup = { match: 'all', rules: [{ field: 'tag', operator: 'has', value: 'vip' }] };
const buyers: SegmentGroup = {
  match: 'any',
  rules: [
    { field: 'event.purchase', operator: 'performed', count: 2, within_days: 30 },
    { match: 'all', rules: [{ field: 'custom.plan', operator: 'eq', value: 'pro' }] },
  ],
};

const created: SegmentEvent = { type: 'SegmentCreated', data: { ...base, name: 'VIPs', description: null, rules: vip, created_at: iso(0) } };
const deleted: SegmentEvent = { type: 'SegmentDeleted', data: { ...base, deleted_at: iso(9) } };
const replace = (name: string, description: string | null, rules: SegmentGroup, acct = accountId) =>
  ({ type: 'UpdateSegment' as const, accountId: acct, name, description, rules, now: at(5) });
const notFoundSegment = (e: unknown) => domainError('not_found', 404)(e) !== false && (e as Error).message === 'segment not found';

describe('creating a segment', () => {
  it('a segment is created with its name, description and rules', () => {
    given([])
      .when({ type: 'CreateSegment', accountId, id: 'seg_1', name: 'Buyers', description: 'bought twice', rules: buyers, now: at(0) })
      .then([{ type: 'SegmentCreated', data: { ...base, name: 'Buyers', description: 'bought twice', rules: buyers, created_at: iso(0) } }]);
  });

  it('a segment is created only once, and a deleted one is not created again', () => {
    const again = { type: 'CreateSegment' as const, accountId, id: 'seg_1', name: 'x', description: null, rules: vip, now: at(5) };
    given([created]).when(again).thenThrows(domainError('conflict', 409));
    given([created, deleted]).when(again).thenThrows(domainError('conflict', 409));
  });
});

describe('replacing a segment', () => {
  it('replaces name, description and rules together', () => {
    given([created])
      .when(replace('Buyers', 'twice a month', buyers))
      .then([{ type: 'SegmentUpdated', data: { ...base, name: 'Buyers', description: 'twice a month', rules: buyers, updated_at: iso(5) } }]);
  });

  it('a change of the rules alone, or of the description alone, is a replace too', () => {
    given([created]).when(replace('VIPs', null, buyers)).then([{ type: 'SegmentUpdated', data: { ...base, name: 'VIPs', description: null, rules: buyers, updated_at: iso(5) } }]);
    given([created]).when(replace('VIPs', 'd', vip)).then([{ type: 'SegmentUpdated', data: { ...base, name: 'VIPs', description: 'd', rules: vip, updated_at: iso(5) } }]);
  });

  it('a replace with what is there already decides nothing', () => {
    // (keys in another order: a stream read back from jsonb has them so)
    given([created]).when(replace('VIPs', null, { rules: [{ value: 'vip', operator: 'has', field: 'tag' }], match: 'all' })).thenNothingHappened();
    const updated: SegmentEvent = { type: 'SegmentUpdated', data: { ...base, name: 'Buyers', description: 'd', rules: buyers, updated_at: iso(2) } };
    given([created, updated]).when(replace('Buyers', 'd', buyers)).thenNothingHappened();
  });

  it('a missing, deleted or other account’s segment is not found', () => {
    given([]).when(replace('x', null, vip)).thenThrows(notFoundSegment);
    given([created, deleted]).when(replace('x', null, vip)).thenThrows(notFoundSegment);
    given([created]).when(replace('x', null, vip, 'acct_2')).thenThrows(notFoundSegment);
  });
});

describe('deleting a segment', () => {
  it('deletes a live segment once', () => {
    given([created]).when({ type: 'DeleteSegment', accountId, now: at(9) }).then([deleted]);
    given([created, deleted]).when({ type: 'DeleteSegment', accountId, now: at(10) }).thenThrows(notFoundSegment);
  });

  it('another account cannot delete it, and a missing one is not found', () => {
    given([created]).when({ type: 'DeleteSegment', accountId: 'acct_2', now: at(9) }).thenThrows(notFoundSegment);
    given([]).when({ type: 'DeleteSegment', accountId, now: at(9) }).thenThrows(notFoundSegment);
  });
});
