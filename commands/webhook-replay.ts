// A webhook replay (stream webhookreplay-<id>): a job that re-delivers an account's platform events
// from a window of the log to one endpoint. It is requested, then scanned by the replay worker up to
// `until` (a log position fixed at the request, so the job is finite), then completed once every
// delivery it made has settled — or cancelled at any point before that.
import type { PlatformEvent } from './webhook-endpoint.ts';
import type { Decider } from '../src/decider.ts';
import { conflict, notFound } from '../src/errors.ts';

export type ReplayStatus = 'scanning' | 'delivering' | 'completed' | 'cancelled';

export interface WebhookReplayRequestedData {
  id: string;
  account_id: string;
  endpoint_id: string;
  /** the first log position replayed (inclusive), as positionToString writes it */
  from: string;
  /** the last log position replayed (inclusive) */
  until: string;
  /** what the caller gave: an RFC 3339 time or a position (null: until the head of the log at the request) */
  from_input: string;
  until_input: string | null;
  /** the platform events replayed: what the endpoint subscribed to at the request ∩ what the caller asked for */
  types: PlatformEvent[];
  requested_at: string;
}

export type WebhookReplayEvent =
  | { type: 'WebhookReplayRequested'; data: WebhookReplayRequestedData }
  | { type: 'WebhookReplayScanned'; data: { id: string; account_id: string; found: number; at: string } }
  | { type: 'WebhookReplayCompleted'; data: { id: string; account_id: string; delivered: number; failed: number; at: string } }
  | { type: 'WebhookReplayCancelled'; data: { id: string; account_id: string; at: string; reason?: string } };

export const WEBHOOK_REPLAY_EVENT_TYPES: WebhookReplayEvent['type'][] = ['WebhookReplayRequested', 'WebhookReplayScanned', 'WebhookReplayCompleted', 'WebhookReplayCancelled'];

export interface WebhookReplayState {
  status: ReplayStatus | 'none';
  id?: string;
  accountId?: string;
}

export type WebhookReplayCommand =
  | { type: 'Request'; id: string; accountId: string; endpointId: string; from: string; until: string; fromInput: string; untilInput: string | null; types: PlatformEvent[]; now: Date }
  /** by the account (the API, the CLI), or by the worker when the endpoint is gone (`reason`) */
  | { type: 'Cancel'; accountId: string; now: Date; reason?: string }
  /** the worker's scan reached `until` */
  | { type: 'MarkScanned'; found: number; now: Date }
  /** the worker saw every delivery of the replay settled */
  | { type: 'Complete'; delivered: number; failed: number; now: Date };

export const webhookReplayDecider: Decider<WebhookReplayCommand, WebhookReplayState, WebhookReplayEvent> = {
  initialState: { status: 'none' },
  evolve(state, e) {
    switch (e.type) {
      case 'WebhookReplayRequested':
        return { status: 'scanning', id: e.data.id, accountId: e.data.account_id };
      case 'WebhookReplayScanned':
        return state.status === 'scanning' ? { ...state, status: 'delivering' } : state;
      case 'WebhookReplayCompleted':
        return { ...state, status: 'completed' };
      case 'WebhookReplayCancelled':
        return { ...state, status: 'cancelled' };
    }
  },
  decide(c, state) {
    const at = c.now.toISOString();
    if (c.type === 'Request') {
      if (state.status !== 'none') throw conflict('webhook replay already exists');
      return [{
        type: 'WebhookReplayRequested',
        data: {
          id: c.id, account_id: c.accountId, endpoint_id: c.endpointId, from: c.from, until: c.until, from_input: c.fromInput, until_input: c.untilInput,
          types: c.types, requested_at: at,
        },
      }];
    }
    if (state.status === 'none') throw notFound('webhook replay');
    const base = { id: state.id!, account_id: state.accountId! };
    switch (c.type) {
      case 'Cancel':
        if (state.accountId !== c.accountId) throw notFound('webhook replay');
        if (state.status === 'completed' || state.status === 'cancelled') throw conflict(`this replay is already ${state.status}`, { status: state.status });
        return [{ type: 'WebhookReplayCancelled', data: { ...base, at, ...(c.reason ? { reason: c.reason } : {}) } }];
      case 'MarkScanned':
        // a repeat (a worker that restarted after appending it) or a replay cancelled meanwhile: nothing to record
        return state.status === 'scanning' ? [{ type: 'WebhookReplayScanned', data: { ...base, found: c.found, at } }] : [];
      case 'Complete':
        if (state.status === 'scanning') throw conflict('this replay is still scanning the log');
        return state.status === 'delivering' ? [{ type: 'WebhookReplayCompleted', data: { ...base, delivered: c.delivered, failed: c.failed, at } }] : [];
    }
  },
};

export const webhookReplayStream = (id: string) => `webhookreplay-${id}`;
