// A registered sender identity (stream sender-<id>): registered pending, or approved at once when
// its country's rules need no registration for its type; an operator approves or rejects a pending
// one; the account may remove it at any time.
import type { Decider } from '../src/decider.ts';
import { conflict, notFound } from '../src/errors.ts';

export type SenderStatus = 'pending' | 'approved' | 'rejected';
export type RegisteredSenderType = 'alphanumeric' | 'long_code' | 'short_code' | 'toll_free';
export type RegisteredSenderChannel = 'sms' | 'voice' | 'whatsapp';

export interface SenderIdentity {
  sender: string;
  channel: RegisteredSenderChannel;
  country: string;
  type: RegisteredSenderType;
}

export type SenderEvent =
  | { type: 'SenderRegistered'; data: { id: string; account_id: string } & SenderIdentity & { registration_required: boolean; created_at: string } }
  | { type: 'SenderApproved'; data: { id: string; account_id: string; approved_at: string; automatic: boolean } }
  | { type: 'SenderRejected'; data: { id: string; account_id: string; reason: string; rejected_at: string } }
  | { type: 'SenderRemoved'; data: { id: string; account_id: string; removed_at: string } };

export const SENDER_EVENT_TYPES = ['SenderRegistered', 'SenderApproved', 'SenderRejected', 'SenderRemoved'] as const satisfies readonly SenderEvent['type'][];

export interface SenderState {
  exists: boolean;
  removed: boolean;
  id?: string;
  accountId?: string;
  identity?: SenderIdentity;
  registrationRequired?: boolean;
  status?: SenderStatus;
  rejectionReason?: string;
  createdAt?: string;
  updatedAt?: string;
}

export type SenderCommand =
  | { type: 'Register'; id: string; accountId: string; identity: SenderIdentity; registrationRequired: boolean; now: Date }
  /** an operator's decision: no account, the operator acts across accounts */
  | { type: 'Approve'; now: Date }
  | { type: 'Reject'; reason: string; now: Date }
  | { type: 'Remove'; accountId: string; now: Date };

export const senderDecider: Decider<SenderCommand, SenderState, SenderEvent> = {
  initialState: { exists: false, removed: false },
  evolve(state, e) {
    switch (e.type) {
      case 'SenderRegistered': {
        const { id, account_id, registration_required, created_at, ...identity } = e.data;
        return { exists: true, removed: false, id, accountId: account_id, identity, registrationRequired: registration_required, status: 'pending', createdAt: created_at, updatedAt: created_at };
      }
      case 'SenderApproved':
        return { ...state, status: 'approved', updatedAt: e.data.approved_at };
      case 'SenderRejected':
        return { ...state, status: 'rejected', rejectionReason: e.data.reason, updatedAt: e.data.rejected_at };
      case 'SenderRemoved':
        return { ...state, removed: true, updatedAt: e.data.removed_at };
    }
  },
  decide(c, state) {
    const at = c.now.toISOString();
    if (c.type === 'Register') {
      if (state.exists) throw conflict('sender already exists');
      const base = { id: c.id, account_id: c.accountId };
      const registered: SenderEvent = { type: 'SenderRegistered', data: { ...base, ...c.identity, registration_required: c.registrationRequired, created_at: at } };
      // nothing to wait for: the sender is usable at once, through the same transition an operator makes
      if (!c.registrationRequired) return [registered, { type: 'SenderApproved', data: { ...base, approved_at: at, automatic: true } }];
      return [registered];
    }
    if (!state.exists || state.removed) throw notFound('sender');
    if (c.type === 'Remove' && state.accountId !== c.accountId) throw notFound('sender');
    const base = { id: state.id!, account_id: state.accountId! };
    switch (c.type) {
      case 'Remove':
        return [{ type: 'SenderRemoved', data: { ...base, removed_at: at } }];
      case 'Approve':
        if (state.status === 'approved') return [];
        if (state.status === 'rejected') throw conflict('a rejected sender cannot be approved; the account removes it and registers it again', { status: state.status });
        return [{ type: 'SenderApproved', data: { ...base, approved_at: at, automatic: false } }];
      case 'Reject':
        if (state.status === 'rejected') return [];
        if (state.status === 'approved') throw conflict('an approved sender cannot be rejected; remove it instead', { status: state.status });
        return [{ type: 'SenderRejected', data: { ...base, reason: c.reason, rejected_at: at } }];
    }
  },
};

export const senderStream = (id: string) => `sender-${id}`;
