// List commands, and the one fact a list's decider needs from another stream: whether the contact
// being added or removed is live and the account's (read from the contact's own stream, never from a
// read model). A list's views: from the read model (with its live member count), or from the
// stream's state when the read model has not caught up within the read-your-writes wait.
import { type ListAttributes, type ListCommand, type ListState, listDecider, listStream } from '../../commands/list.ts';
import type { ListRow } from '../../projections/lists.ts';
import { loadContact } from '../contacts/service.ts';
import type { Engage } from '../context.ts';
import { handleCommand } from '../command-handler.ts';
import { notFound } from '../errors.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { isId, newId } from '../ids.ts';

/** A list as the API shows it. */
export interface ListView {
  id: string;
  name: string;
  description: string | null;
  favorite: boolean;
  member_count: number;
  created_at: string;
  updated_at: string;
}

export function listOut(r: ListRow): ListView {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    favorite: r.favorite,
    member_count: r.member_count,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/**
 * The view of a list from its stream's state. Its member count is the stream's own, which still counts
 * contacts deleted since they were added: shown only when the read model is late.
 */
export function listView(s: ListState): ListView {
  return {
    id: s.id!,
    name: s.name!,
    description: s.description ?? null,
    favorite: s.favorite,
    member_count: s.members.size,
    created_at: s.createdAt ?? '',
    updated_at: s.updatedAt ?? s.createdAt ?? '',
  };
}

export interface ListWrite {
  id: string;
  state: ListState;
  /** false when the command changed nothing (an add of a member already there, an unchanged update) */
  changed: boolean;
  position?: Position;
}

async function runListCommand(engage: Engage, accountId: string, id: string, command: ListCommand, metadata: EventMetadata): Promise<ListWrite> {
  // a string that is not a list id can only be a 404: no stream to read
  if (!isId('list', id)) throw notFound('list');
  const result = await handleCommand(engage.store, listDecider, listStream(id), command, metadata);
  return { id, state: result.state, changed: result.events.length > 0, position: result.position };
}

/** True when the contact exists, is not deleted or erased, and belongs to the account. */
async function contactIsLive(engage: Engage, accountId: string, contactId: string): Promise<boolean> {
  if (!isId('contact', contactId)) return false;
  const state = await loadContact(engage, contactId);
  return state.status === 'active' && state.accountId === accountId;
}

export function createList(engage: Engage, accountId: string, input: { name: string; description?: string | null }, metadata: EventMetadata): Promise<ListWrite> {
  const id = newId('list');
  return runListCommand(engage, accountId, id, { type: 'CreateList', accountId, id, name: input.name, description: input.description ?? null, now: engage.clock.now() }, metadata);
}

export function updateList(engage: Engage, accountId: string, id: string, changes: ListAttributes, metadata: EventMetadata): Promise<ListWrite> {
  return runListCommand(engage, accountId, id, { type: 'UpdateList', accountId, changes, now: engage.clock.now() }, metadata);
}

export function setListFavorite(engage: Engage, accountId: string, id: string, favorite: boolean, metadata: EventMetadata): Promise<ListWrite> {
  return runListCommand(engage, accountId, id, { type: 'SetListFavorite', accountId, favorite, now: engage.clock.now() }, metadata);
}

export function deleteList(engage: Engage, accountId: string, id: string, metadata: EventMetadata): Promise<ListWrite> {
  return runListCommand(engage, accountId, id, { type: 'DeleteList', accountId, now: engage.clock.now() }, metadata);
}

export async function addListMember(engage: Engage, accountId: string, id: string, contactId: string, metadata: EventMetadata): Promise<ListWrite> {
  if (!isId('list', id)) throw notFound('list');
  const contactExists = await contactIsLive(engage, accountId, contactId);
  return runListCommand(engage, accountId, id, { type: 'AddListMember', accountId, contactId, contactExists, now: engage.clock.now() }, metadata);
}

export async function removeListMember(engage: Engage, accountId: string, id: string, contactId: string, metadata: EventMetadata): Promise<ListWrite> {
  if (!isId('list', id)) throw notFound('list');
  const contactExists = await contactIsLive(engage, accountId, contactId);
  return runListCommand(engage, accountId, id, { type: 'RemoveListMember', accountId, contactId, contactExists, now: engage.clock.now() }, metadata);
}
