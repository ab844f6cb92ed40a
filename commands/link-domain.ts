// A click-tracking link domain of one account (stream linkdomain-<id>): added with the CNAME target
// its owner points it at, checked live by DNS (verified when the CNAME names the target), removed.
import type { Decider } from '../src/decider.ts';
import { conflict, notFound } from '../src/errors.ts';

type Base = { id: string; account_id: string };
export type LinkDomainEvent =
  | { type: 'LinkDomainAdded'; data: Base & { domain: string; unicode_domain: string; target: string; created_at: string } }
  | { type: 'LinkDomainChecked'; data: Base & { found: string[]; pass: boolean; error?: string; checked_at: string } }
  | { type: 'LinkDomainRemoved'; data: Base & { removed_at: string } };

export const LINK_DOMAIN_EVENT_TYPES = ['LinkDomainAdded', 'LinkDomainChecked', 'LinkDomainRemoved'] as const satisfies readonly LinkDomainEvent['type'][];

export interface LinkDomainState {
  exists: boolean;
  removed: boolean;
  id?: string;
  accountId?: string;
  /** the host the CNAME must name, as it was when the domain was added */
  target?: string;
}

export type LinkDomainCommand =
  | { type: 'Add'; id: string; accountId: string; domain: string; unicodeDomain: string; target: string; now: Date }
  /** what the live lookup of the domain's CNAME answered: its targets, or the lookup's failure */
  | { type: 'RecordCheck'; accountId: string; found: string[]; error?: string; now: Date }
  | { type: 'Remove'; accountId: string; now: Date };

const host = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

export const linkDomainDecider: Decider<LinkDomainCommand, LinkDomainState, LinkDomainEvent> = {
  initialState: { exists: false, removed: false },
  evolve(state, e) {
    switch (e.type) {
      case 'LinkDomainAdded':
        return { ...state, exists: true, id: e.data.id, accountId: e.data.account_id, target: e.data.target };
      case 'LinkDomainChecked':
        return state;
      case 'LinkDomainRemoved':
        return { ...state, removed: true };
    }
  },
  decide(c, state) {
    const at = c.now.toISOString();
    if (c.type === 'Add') {
      if (state.exists) throw conflict('link domain already exists');
      return [{ type: 'LinkDomainAdded', data: { id: c.id, account_id: c.accountId, domain: c.domain, unicode_domain: c.unicodeDomain, target: c.target, created_at: at } }];
    }
    // another account's domain answers exactly like a missing one
    if (!state.exists || state.removed || state.accountId !== c.accountId) throw notFound('link domain');
    const base = { id: state.id!, account_id: state.accountId! };
    switch (c.type) {
      case 'RecordCheck': {
        // a failed lookup says nothing about the record: it does not pass
        const pass = c.error === undefined && c.found.some((f) => host(f) === host(state.target!));
        return [{ type: 'LinkDomainChecked', data: { ...base, found: c.found, pass, ...(c.error !== undefined ? { error: c.error } : {}), checked_at: at } }];
      }
      case 'Remove':
        return [{ type: 'LinkDomainRemoved', data: { ...base, removed_at: at } }];
    }
  },
};

export const linkDomainStream = (id: string) => `linkdomain-${id}`;
