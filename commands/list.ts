// The list aggregate (stream list-<id>): a named set of contacts of one account, its attributes
// (name, description, favorite pin), its deletion, and its memberships — each added or removed
// contact is an event on the list's own stream, so the stream alone says who was put on the list.
//
// Whether the contact exists is the handler's input (contactExists, read from the contact's stream):
// a decider sees only its own stream. A contact deleted or erased later leaves its membership in
// this stream; the lists read model (projections/lists.ts) drops it when it sees the ContactDeleted
// or ContactErased, and such a contact can be neither added nor removed again (404 for the contact).
import type { Decider } from '../src/decider.ts';
import { AppError, notFound } from '../src/errors.ts';

export interface ListAttributes {
  name?: string;
  description?: string | null;
}

export type ListEvent =
  | { type: 'ListCreated'; data: { account_id: string; id: string; name: string; description: string | null; created_at: string } }
  | { type: 'ListUpdated'; data: { account_id: string; id: string; changes: ListAttributes; updated_at: string } }
  | { type: 'ListFavoriteSet'; data: { account_id: string; id: string; favorite: boolean; at: string } }
  | { type: 'ListDeleted'; data: { account_id: string; id: string; deleted_at: string } }
  | { type: 'ListMemberAdded'; data: { account_id: string; id: string; contact_id: string; added_at: string } }
  | { type: 'ListMemberRemoved'; data: { account_id: string; id: string; contact_id: string; removed_at: string } };

export interface ListState {
  status: 'none' | 'active' | 'deleted';
  id?: string;
  accountId?: string;
  name?: string;
  description?: string | null;
  favorite: boolean;
  createdAt?: string;
  updatedAt?: string;
  /**
   * The contacts on the list as far as this stream knows (a contact deleted since is still here).
   * Owned by this state alone: evolve adds to it in place, because copying it per event would make
   * folding a list of n members O(n²). ListCreated makes the set, so no two folds ever share one.
   */
  members: Set<string>;
}

export type ListCommand =
  | { type: 'CreateList'; accountId: string; id: string; name: string; description?: string | null; now: Date }
  | { type: 'UpdateList'; accountId: string; changes: ListAttributes; now: Date }
  | { type: 'SetListFavorite'; accountId: string; favorite: boolean; now: Date }
  | { type: 'DeleteList'; accountId: string; now: Date }
  /** `contactExists`: the contact is live and the account's (the handler read its stream) */
  | { type: 'AddListMember'; accountId: string; contactId: string; contactExists: boolean; now: Date }
  | { type: 'RemoveListMember'; accountId: string; contactId: string; contactExists: boolean; now: Date };

function visible(state: ListState, accountId: string) {
  // another account's list is exactly as invisible as a missing one
  if (state.status !== 'active' || state.accountId !== accountId) throw notFound('list');
}

export const listDecider: Decider<ListCommand, ListState, ListEvent> = {
  initialState: { status: 'none', favorite: false, members: new Set() },
  // a list's stream grows by one event per member added or removed
  snapshot: {
    kind: 'list',
    version: 1,
    every: 1_000,
    encode: (state) => ({ ...state, members: [...state.members] }),
    decode: (value) => {
      const v = value as Omit<ListState, 'members'> & { members: string[] };
      return { ...v, members: new Set(v.members) };
    },
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ListCreated':
        return {
          status: 'active', id: event.data.id, accountId: event.data.account_id, name: event.data.name, description: event.data.description,
          favorite: false, createdAt: event.data.created_at, updatedAt: event.data.created_at, members: new Set(),
        };
      case 'ListUpdated':
        return { ...state, ...event.data.changes, updatedAt: event.data.updated_at };
      case 'ListFavoriteSet':
        return { ...state, favorite: event.data.favorite, updatedAt: event.data.at };
      case 'ListDeleted':
        return { ...state, status: 'deleted' };
      case 'ListMemberAdded':
        // (never the initial state's set: a stream without ListCreated is not a list)
        if (state.status === 'none') return state;
        state.members.add(event.data.contact_id);
        return state;
      case 'ListMemberRemoved':
        if (state.status === 'none') return state;
        state.members.delete(event.data.contact_id);
        return state;
    }
  },
  decide(command, state) {
    const at = command.now.toISOString();
    switch (command.type) {
      case 'CreateList':
        if (state.status !== 'none') throw new AppError(409, 'conflict', 'list already exists');
        return [{ type: 'ListCreated', data: { account_id: command.accountId, id: command.id, name: command.name, description: command.description ?? null, created_at: at } }];
      case 'UpdateList': {
        visible(state, command.accountId);
        // record only what actually changes, so the history says what happened
        const changes: ListAttributes = {};
        if (command.changes.name !== undefined && command.changes.name !== state.name) changes.name = command.changes.name;
        if (command.changes.description !== undefined && command.changes.description !== state.description) changes.description = command.changes.description;
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'ListUpdated', data: { account_id: command.accountId, id: state.id!, changes, updated_at: at } }];
      }
      case 'SetListFavorite':
        visible(state, command.accountId);
        if (state.favorite === command.favorite) return [];
        return [{ type: 'ListFavoriteSet', data: { account_id: command.accountId, id: state.id!, favorite: command.favorite, at } }];
      case 'DeleteList':
        visible(state, command.accountId);
        return [{ type: 'ListDeleted', data: { account_id: command.accountId, id: state.id!, deleted_at: at } }];
      case 'AddListMember':
        visible(state, command.accountId);
        if (!command.contactExists) throw notFound('contact');
        // adding a member again changes nothing (the API answers 200 instead of 201)
        if (state.members.has(command.contactId)) return [];
        return [{ type: 'ListMemberAdded', data: { account_id: command.accountId, id: state.id!, contact_id: command.contactId, added_at: at } }];
      case 'RemoveListMember':
        visible(state, command.accountId);
        if (!command.contactExists) throw notFound('contact');
        if (!state.members.has(command.contactId)) throw new AppError(404, 'not_found', 'the contact is not on this list');
        return [{ type: 'ListMemberRemoved', data: { account_id: command.accountId, id: state.id!, contact_id: command.contactId, removed_at: at } }];
    }
  },
};

export const listStream = (id: string) => `list-${id}`;
export const LIST_EVENT_TYPES = ['ListCreated', 'ListUpdated', 'ListFavoriteSet', 'ListDeleted', 'ListMemberAdded', 'ListMemberRemoved'] as const;
