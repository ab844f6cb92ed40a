// An integration of one account with an outside provider (stream integration-<id>): created with
// its credentials sealed (src/seal.ts) and a hint that identifies them, and removed.
import type { Decider } from '../src/decider.ts';
import { conflict, notFound } from '../src/errors.ts';

export const INTEGRATION_PROVIDERS = ['smtp', 'sendgrid', 'twilio', 'twilio_voice', 'twilio_rcs', 'whatsapp_cloud', 'fcm', 'apns'] as const;
export type IntegrationProvider = (typeof INTEGRATION_PROVIDERS)[number];
/** The providers that are a Twilio account: their callbacks are signed with that account's auth token. */
export const TWILIO_PROVIDERS = ['twilio', 'twilio_voice', 'twilio_rcs'] as const satisfies readonly IntegrationProvider[];

export interface IntegrationRecord {
  id: string;
  account_id: string;
  provider: IntegrationProvider;
  channel: string;
  name: string;
  /** the credentials as JSON, sealed: never in clear in the log */
  credentials_sealed: string;
  /** what identifies the credentials without revealing them (an account id, a host, the last characters of a key) */
  hint: string;
  created_at: string;
}

export type IntegrationEvent =
  | { type: 'IntegrationCreated'; data: IntegrationRecord }
  | { type: 'IntegrationRemoved'; data: { id: string; account_id: string; removed_at: string } };

export const INTEGRATION_EVENT_TYPES = ['IntegrationCreated', 'IntegrationRemoved'] as const satisfies readonly IntegrationEvent['type'][];

export interface IntegrationState {
  exists: boolean;
  removed: boolean;
  record?: IntegrationRecord;
}

export type IntegrationCommand =
  | { type: 'Create'; record: Omit<IntegrationRecord, 'created_at'>; now: Date }
  | { type: 'Remove'; accountId: string; now: Date };

export const integrationDecider: Decider<IntegrationCommand, IntegrationState, IntegrationEvent> = {
  initialState: { exists: false, removed: false },
  evolve(state, e) {
    switch (e.type) {
      case 'IntegrationCreated':
        return { exists: true, removed: false, record: e.data };
      case 'IntegrationRemoved':
        return { ...state, removed: true };
    }
  },
  decide(c, state) {
    if (c.type === 'Create') {
      if (state.exists) throw conflict('integration already exists');
      return [{ type: 'IntegrationCreated', data: { ...c.record, created_at: c.now.toISOString() } }];
    }
    if (!state.exists || state.removed || state.record!.account_id !== c.accountId) throw notFound('integration');
    return [{ type: 'IntegrationRemoved', data: { id: state.record!.id, account_id: c.accountId, removed_at: c.now.toISOString() } }];
  },
};

export const integrationStream = (id: string) => `integration-${id}`;
