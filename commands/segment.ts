// The segment aggregate (stream segment-<id>): a named, saved rule set of one account (README
// "Segment rules"), replaced whole by an update, and its deletion.
//
// The rules arrive validated: whether a custom field key or a list id exists is read by the service
// before the command (src/segments/service.ts), because a decider sees only its own stream. The
// members are never stored: a segment resolves to contacts at read time (src/segments/compile.ts).
import { isDeepStrictEqual } from 'node:util';
import type { Decider } from '../src/decider.ts';
import { AppError, notFound } from '../src/errors.ts';

/** One condition on a contact: `field` (contact.<name>, custom.<key>, list, tag, event.<name>, suppressed), its operator and value. */
export interface SegmentRule {
  field: string;
  operator: string;
  value?: unknown;
  /** event rules: how many times (performed: at least, performed_at_most: at most) */
  count?: number;
  /** event rules: only the events of the UTC days from today − within_days to today */
  within_days?: number;
}

/** A group of rules and groups: every one of them must hold (`all`) or at least one (`any`). */
export interface SegmentGroup {
  match: 'all' | 'any';
  rules: (SegmentRule | SegmentGroup)[];
}

export const isGroup = (r: SegmentRule | SegmentGroup): r is SegmentGroup => 'match' in r;

export interface SegmentDefinition {
  name: string;
  description: string | null;
  rules: SegmentGroup;
}

export type SegmentEvent =
  | { type: 'SegmentCreated'; data: { account_id: string; id: string } & SegmentDefinition & { created_at: string } }
  | { type: 'SegmentUpdated'; data: { account_id: string; id: string } & SegmentDefinition & { updated_at: string } }
  | { type: 'SegmentDeleted'; data: { account_id: string; id: string; deleted_at: string } };

export interface SegmentState {
  status: 'none' | 'active' | 'deleted';
  id?: string;
  accountId?: string;
  name?: string;
  description?: string | null;
  rules?: SegmentGroup;
  createdAt?: string;
  updatedAt?: string;
}

export type SegmentCommand =
  | ({ type: 'CreateSegment'; accountId: string; id: string; now: Date } & SegmentDefinition)
  /** a full replace of name, description and rules */
  | ({ type: 'UpdateSegment'; accountId: string; now: Date } & SegmentDefinition)
  | { type: 'DeleteSegment'; accountId: string; now: Date };

function visible(state: SegmentState, accountId: string) {
  // another account's segment is exactly as invisible as a missing one
  if (state.status !== 'active' || state.accountId !== accountId) throw notFound('segment');
}

/** Rule sets compare by value: a stream read back from jsonb has its keys in another order. */
const sameRules = (a: SegmentGroup | undefined, b: SegmentGroup) => isDeepStrictEqual(a, b);

export const segmentDecider: Decider<SegmentCommand, SegmentState, SegmentEvent> = {
  initialState: { status: 'none' },
  evolve(state, event) {
    switch (event.type) {
      case 'SegmentCreated':
        return {
          status: 'active', id: event.data.id, accountId: event.data.account_id, name: event.data.name, description: event.data.description,
          rules: event.data.rules, createdAt: event.data.created_at, updatedAt: event.data.created_at,
        };
      case 'SegmentUpdated':
        return { ...state, name: event.data.name, description: event.data.description, rules: event.data.rules, updatedAt: event.data.updated_at };
      case 'SegmentDeleted':
        return { ...state, status: 'deleted' };
    }
  },
  decide(command, state) {
    const at = command.now.toISOString();
    switch (command.type) {
      case 'CreateSegment':
        if (state.status !== 'none') throw new AppError(409, 'conflict', 'segment already exists');
        return [
          {
            type: 'SegmentCreated',
            data: { account_id: command.accountId, id: command.id, name: command.name, description: command.description, rules: command.rules, created_at: at },
          },
        ];
      case 'UpdateSegment':
        visible(state, command.accountId);
        // a replace with what is there already changes nothing: no event
        if (command.name === state.name && command.description === state.description && sameRules(state.rules, command.rules)) return [];
        return [
          {
            type: 'SegmentUpdated',
            data: { account_id: command.accountId, id: state.id!, name: command.name, description: command.description, rules: command.rules, updated_at: at },
          },
        ];
      case 'DeleteSegment':
        visible(state, command.accountId);
        return [{ type: 'SegmentDeleted', data: { account_id: command.accountId, id: state.id!, deleted_at: at } }];
    }
  },
};

export const segmentStream = (id: string) => `segment-${id}`;
export const SEGMENT_EVENT_TYPES = ['SegmentCreated', 'SegmentUpdated', 'SegmentDeleted'] as const;
