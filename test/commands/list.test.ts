// The list decider's rules (commands/list.ts): creating, updating (only what changes), pinning,
// deleting, adding and removing members (an add repeated changes nothing), and account isolation.
import { describe, expect, it } from 'vitest';
import { type ListEvent, listDecider } from '../../commands/list.ts';
import { fold } from '../../src/decider.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(listDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const accountId = 'acct_1';
const base = { account_id: accountId, id: 'lst_1' };

const created: ListEvent = { type: 'ListCreated', data: { ...base, name: 'Newsletter', description: null, created_at: iso(0) } };
const deleted: ListEvent = { type: 'ListDeleted', data: { ...base, deleted_at: iso(9) } };
const added = (contactId: string, minutes = 1): ListEvent => ({ type: 'ListMemberAdded', data: { ...base, contact_id: contactId, added_at: iso(minutes) } });
const removed = (contactId: string, minutes = 2): ListEvent => ({ type: 'ListMemberRemoved', data: { ...base, contact_id: contactId, removed_at: iso(minutes) } });
const pinned = (favorite: boolean, minutes = 3): ListEvent => ({ type: 'ListFavoriteSet', data: { ...base, favorite, at: iso(minutes) } });

const add = (contactId: string, contactExists = true, minutes = 5) => ({ type: 'AddListMember' as const, accountId, contactId, contactExists, now: at(minutes) });
const remove = (contactId: string, contactExists = true, minutes = 5) => ({ type: 'RemoveListMember' as const, accountId, contactId, contactExists, now: at(minutes) });
const notFoundNaming = (what: string) => (e: unknown) => domainError('not_found', 404)(e) !== false && (e as Error).message.includes(what);

describe('creating a list', () => {
  it('a list is created with its name and description', () => {
    given([])
      .when({ type: 'CreateList', accountId, id: 'lst_1', name: 'Newsletter', description: 'monthly', now: at(0) })
      .then([{ type: 'ListCreated', data: { ...base, name: 'Newsletter', description: 'monthly', created_at: iso(0) } }]);
  });

  it('a list without a description has null', () => {
    given([]).when({ type: 'CreateList', accountId, id: 'lst_1', name: 'Newsletter', now: at(0) }).then([created]);
  });

  it('a list is created only once, and a deleted list is not created again', () => {
    const again = { type: 'CreateList' as const, accountId, id: 'lst_1', name: 'x', now: at(5) };
    given([created]).when(again).thenThrows(domainError('conflict', 409));
    given([created, deleted]).when(again).thenThrows(domainError('conflict', 409));
  });
});

describe('updating a list', () => {
  it('records only the attributes that change', () => {
    given([created])
      .when({ type: 'UpdateList', accountId, changes: { name: 'Newsletter', description: 'weekly' }, now: at(5) })
      .then([{ type: 'ListUpdated', data: { ...base, changes: { description: 'weekly' }, updated_at: iso(5) } }]);
  });

  it('an update that changes nothing decides nothing', () => {
    given([created]).when({ type: 'UpdateList', accountId, changes: { name: 'Newsletter', description: null }, now: at(5) }).thenNothingHappened();
    given([created]).when({ type: 'UpdateList', accountId, changes: {}, now: at(5) }).thenNothingHappened();
  });

  it('null removes the description', () => {
    const described: ListEvent = { type: 'ListUpdated', data: { ...base, changes: { description: 'weekly' }, updated_at: iso(1) } };
    given([created, described])
      .when({ type: 'UpdateList', accountId, changes: { description: null }, now: at(5) })
      .then([{ type: 'ListUpdated', data: { ...base, changes: { description: null }, updated_at: iso(5) } }]);
  });

  it('a missing, deleted or other account’s list is not found', () => {
    const update = (acct = accountId) => ({ type: 'UpdateList' as const, accountId: acct, changes: { name: 'y' }, now: at(5) });
    given([]).when(update()).thenThrows(notFoundNaming('list'));
    given([created, deleted]).when(update()).thenThrows(notFoundNaming('list'));
    given([created]).when(update('acct_2')).thenThrows(notFoundNaming('list'));
  });
});

describe('pinning a list', () => {
  it('pins and unpins', () => {
    given([created]).when({ type: 'SetListFavorite', accountId, favorite: true, now: at(3) }).then([pinned(true)]);
    given([created, pinned(true)]).when({ type: 'SetListFavorite', accountId, favorite: false, now: at(4) }).then([pinned(false, 4)]);
  });

  it('setting the pin it already has decides nothing', () => {
    given([created]).when({ type: 'SetListFavorite', accountId, favorite: false, now: at(3) }).thenNothingHappened();
    given([created, pinned(true)]).when({ type: 'SetListFavorite', accountId, favorite: true, now: at(4) }).thenNothingHappened();
  });

  it('another account cannot pin it', () => {
    given([created]).when({ type: 'SetListFavorite', accountId: 'acct_2', favorite: true, now: at(3) }).thenThrows(notFoundNaming('list'));
  });
});

describe('deleting a list', () => {
  it('deletes a live list once', () => {
    given([created, added('ct_1')]).when({ type: 'DeleteList', accountId, now: at(9) }).then([deleted]);
    given([created, deleted]).when({ type: 'DeleteList', accountId, now: at(10) }).thenThrows(notFoundNaming('list'));
  });

  it('another account cannot delete it', () => {
    given([created]).when({ type: 'DeleteList', accountId: 'acct_2', now: at(9) }).thenThrows(notFoundNaming('list'));
  });
});

describe('adding and removing members', () => {
  it('adds a live contact of the account', () => {
    given([created]).when(add('ct_1')).then([added('ct_1', 5)]);
  });

  it('adding a member again changes nothing, and adding after removal adds again', () => {
    given([created, added('ct_1')]).when(add('ct_1')).thenNothingHappened();
    given([created, added('ct_1'), removed('ct_1')]).when(add('ct_1')).then([added('ct_1', 5)]);
  });

  it('a contact that is not live and the account’s is not found (the list is checked first)', () => {
    given([created]).when(add('ct_x', false)).thenThrows(notFoundNaming('contact'));
    given([]).when(add('ct_x', false)).thenThrows(notFoundNaming('list'));
    given([created, deleted]).when(add('ct_1')).thenThrows(notFoundNaming('list'));
    given([created]).when({ ...add('ct_1'), accountId: 'acct_2' }).thenThrows(notFoundNaming('list'));
  });

  it('removes a member', () => {
    given([created, added('ct_1'), added('ct_2')]).when(remove('ct_1')).then([removed('ct_1', 5)]);
  });

  it('removing a contact that is not on the list, or not live, is not found', () => {
    given([created]).when(remove('ct_1')).thenThrows(notFoundNaming('not on this list'));
    given([created, added('ct_1'), removed('ct_1')]).when(remove('ct_1')).thenThrows(notFoundNaming('not on this list'));
    given([created, added('ct_1')]).when(remove('ct_1', false)).thenThrows(notFoundNaming('contact'));
    given([created, added('ct_1'), deleted]).when(remove('ct_1')).thenThrows(notFoundNaming('list'));
  });

  it('folding never touches the initial state, and each fold has members of its own', () => {
    const a = fold(listDecider, [created, added('ct_1')]);
    const b = fold(listDecider, [created, added('ct_2')]);
    fold(listDecider, [added('ct_orphan')]);
    expect([...a.members]).toEqual(['ct_1']);
    expect([...b.members]).toEqual(['ct_2']);
    expect(listDecider.initialState.members.size).toBe(0);
  });
});
