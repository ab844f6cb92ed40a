// Platform-event webhook endpoints (stream webhookendpoint-<id>). The signing secret travels
// sealed; it is shown in clear once, in the response that creates the endpoint.
import type { Decider } from '../src/decider.ts';
import { conflict, notFound } from '../src/errors.ts';

export const PLATFORM_EVENTS = [
  'contact.created',
  'contact.updated',
  'contact.unsubscribed',
  'contact.bounced',
  'message.delivered',
  'message.failed',
  'message.received',
  'email.opened',
  'campaign.sent',
  'form.submitted',
] as const;
export type PlatformEvent = (typeof PLATFORM_EVENTS)[number];
export type EndpointStatus = 'active' | 'disabled';

export type WebhookEndpointEvent =
  | { type: 'WebhookEndpointCreated'; data: { id: string; account_id: string; url: string; events: PlatformEvent[]; secret_sealed: string; status: EndpointStatus; created_at: string } }
  | { type: 'WebhookEndpointUpdated'; data: { id: string; account_id: string; url?: string; events?: PlatformEvent[]; status?: EndpointStatus; updated_at: string } }
  | { type: 'WebhookEndpointDeleted'; data: { id: string; account_id: string; deleted_at: string } };

export interface WebhookEndpointState {
  exists: boolean;
  deleted: boolean;
  id?: string;
  accountId?: string;
  url?: string;
  events: PlatformEvent[];
  status?: EndpointStatus;
}

export type WebhookEndpointCommand =
  | { type: 'Create'; id: string; accountId: string; url: string; events: PlatformEvent[]; secretSealed: string; now: Date }
  | { type: 'Update'; accountId: string; url?: string; events?: PlatformEvent[]; status?: EndpointStatus; now: Date }
  | { type: 'Delete'; accountId: string; now: Date };

export const webhookEndpointDecider: Decider<WebhookEndpointCommand, WebhookEndpointState, WebhookEndpointEvent> = {
  initialState: { exists: false, deleted: false, events: [] },
  evolve(state, e) {
    switch (e.type) {
      case 'WebhookEndpointCreated':
        return { exists: true, deleted: false, id: e.data.id, accountId: e.data.account_id, url: e.data.url, events: e.data.events, status: e.data.status };
      case 'WebhookEndpointUpdated':
        return { ...state, url: e.data.url ?? state.url, events: e.data.events ?? state.events, status: e.data.status ?? state.status };
      case 'WebhookEndpointDeleted':
        return { ...state, deleted: true };
    }
  },
  decide(c, state) {
    const at = c.now.toISOString();
    if (c.type === 'Create') {
      if (state.exists) throw conflict('webhook endpoint already exists');
      return [{ type: 'WebhookEndpointCreated', data: { id: c.id, account_id: c.accountId, url: c.url, events: c.events, secret_sealed: c.secretSealed, status: 'active', created_at: at } }];
    }
    if (!state.exists || state.deleted || state.accountId !== c.accountId) throw notFound('webhook endpoint');
    const id = state.id!;
    if (c.type === 'Delete') return [{ type: 'WebhookEndpointDeleted', data: { id, account_id: c.accountId, deleted_at: at } }];
    const change: { url?: string; events?: PlatformEvent[]; status?: EndpointStatus } = {};
    if (c.url !== undefined && c.url !== state.url) change.url = c.url;
    if (c.events !== undefined && JSON.stringify(c.events) !== JSON.stringify(state.events)) change.events = c.events;
    if (c.status !== undefined && c.status !== state.status) change.status = c.status;
    if (Object.keys(change).length === 0) return [];
    return [{ type: 'WebhookEndpointUpdated', data: { id, account_id: c.accountId, ...change, updated_at: at } }];
  },
};

export const webhookEndpointStream = (id: string) => `webhookendpoint-${id}`;
