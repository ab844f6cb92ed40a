// The contact aggregate (stream contact-<id>): standard fields, custom values, tags, deletion, and
// the events the contact did (POST /v1/events), which change none of its fields.
import type { Decider } from '../src/decider.ts';
import { AppError, invalidField, notFound, validationError, type Issue } from '../src/errors.ts';
import { checkCustomValue, type FieldDefinition } from './custom-fields.ts';

export const STANDARD_FIELDS = ['email', 'phone', 'first_name', 'last_name', 'country', 'language', 'timezone', 'external_id', 'tags'] as const;
export type StandardField = (typeof STANDARD_FIELDS)[number];

export interface ContactFields {
  email?: string | null;
  phone?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  country?: string | null;
  language?: string | null;
  timezone?: string | null;
  external_id?: string | null;
  tags?: string[];
}

export type CustomValues = Record<string, unknown>;

export type ContactEvent =
  | { type: 'ContactCreated'; data: { account_id: string; id: string; fields: ContactFields; custom_fields: CustomValues; created_at: string } }
  | { type: 'ContactUpdated'; data: { account_id: string; id: string; changes: ContactFields; custom_fields: Record<string, unknown | null>; updated_at: string } }
  | { type: 'ContactDeleted'; data: { account_id: string; id: string; deleted_at: string } }
  /** email feedback reported a bounce: a deliverability signal, not an opt-out */
  | { type: 'ContactBounced'; data: { account_id: string; id: string; email: string; reason: string; message_id?: string; at: string } }
  /**
   * The person's data is erased (right to erasure): the keys that sealed it are destroyed, so every
   * earlier event of theirs reads as erased. Holds no personal data: who, when, why, which keys, and
   * the keyed hashes of the addresses that stay suppressed.
   */
  | { type: 'ContactErased'; data: ContactErasedData }
  /**
   * The contact did something the customer tracks (POST /v1/events). `properties` are personal data
   * (sealed under the contact's key); `name` stays readable: segments count events by name.
   */
  | { type: 'EventTracked'; data: EventTrackedData }
  /**
   * A push device of the contact (README "Push devices"): `token` is personal data (sealed under the
   * contact's key). Registered again with another platform or app_id: the same device_id, changed.
   */
  | { type: 'ContactDeviceRegistered'; data: ContactDeviceRegisteredData }
  /** A device no longer reached through the contact: removed by the API, unregistered by its provider, or replaced (moved to another contact, or past the cap). */
  | { type: 'ContactDeviceRemoved'; data: ContactDeviceRemovedData }
  /**
   * The person agreed to be contacted, through a signup form (README "Signup forms"): when, from
   * where (`ip`, `user_agent`: personal data, sealed under the contact's key) and to what text.
   */
  | { type: 'ContactConsentRecorded'; data: ContactConsentRecordedData };

export interface ContactConsentRecordedData {
  account_id: string;
  /** the contact */
  id: string;
  form_id: string;
  submission_id: string;
  list_id: string;
  /** double_opt_in: confirmed by the link sent to the address; single_opt_in: the submission alone */
  method: 'double_opt_in' | 'single_opt_in';
  text: string;
  ip: string | null;
  user_agent: string | null;
  submitted_at: string;
  at: string;
}

export const DEVICE_PLATFORMS = ['ios', 'android', 'web'] as const;
export type DevicePlatform = (typeof DEVICE_PLATFORMS)[number];
export type DeviceRemovalReason = 'removed' | 'unregistered' | 'replaced';
/** The most active devices a contact has; registering one more removes the oldest (README "Push devices"). */
export const MAX_DEVICES_PER_CONTACT = 50;

export interface ContactDeviceRegisteredData {
  account_id: string;
  /** the contact */
  id: string;
  device_id: string;
  token: string;
  platform: DevicePlatform;
  app_id?: string;
  at: string;
}

export interface ContactDeviceRemovedData {
  account_id: string;
  id: string;
  device_id: string;
  reason: DeviceRemovalReason;
  at: string;
}

/** An active device as the contact's stream folds it (oldest registration first). */
export interface ContactDevice {
  device_id: string;
  token: string;
  platform: DevicePlatform;
  app_id?: string;
  created_at: string;
  last_registered_at: string;
}

export interface EventTrackedData {
  account_id: string;
  contact_id: string;
  /** the client's id of the event, or the event's own id when the client gave none */
  event_id: string;
  /** 'browser': sent with the public tracking key, whose ids are the visitor's own; absent: the server API */
  source?: 'browser';
  name: string;
  properties: Record<string, unknown>;
  /** when it happened (RFC 3339 UTC), as the client says */
  timestamp: string;
  /** when it was ingested */
  received_at: string;
}

/** How far ahead of the clock a tracked event's timestamp may be (clients' clocks drift). */
export const MAX_EVENT_AHEAD_MS = 24 * 60 * 60 * 1000;

export interface ContactErasedData {
  account_id: string;
  id: string;
  erasure_id: string;
  /** the data keys destroyed: the contact's own and those of every address it ever had */
  key_ids: string[];
  address_hashes: string[];
  reason: string | null;
  erased_by: string;
  erased_at: string;
}

export interface ContactState {
  status: 'none' | 'active' | 'deleted' | 'erased';
  id?: string;
  accountId?: string;
  fields: ContactFields;
  custom: CustomValues;
  createdAt?: string;
  updatedAt?: string;
  bounces?: number;
  /** every email and phone number the contact ever had (what an erasure must also erase) */
  addresses: string[];
  /** its active push devices, oldest first (absent: none) */
  devices?: ContactDevice[];
  /** the form submissions whose consent it recorded (absent: none) */
  consents?: string[];
}

export type ContactCommand =
  | { type: 'CreateContact'; accountId: string; id: string; fields: ContactFields; custom: CustomValues; definitions: FieldDefinition[]; now: Date }
  | { type: 'UpdateContact'; accountId: string; changes: ContactFields; custom: Record<string, unknown | null>; definitions: FieldDefinition[]; now: Date }
  | { type: 'DeleteContact'; accountId: string; now: Date }
  | { type: 'RecordBounce'; accountId: string; email: string; reason: string; messageId?: string; now: Date }
  | { type: 'EraseContact'; accountId: string; erasureId: string; keyIds: string[]; addressHashes: string[]; reason?: string; erasedBy: string; now: Date }
  /** `timestamp`: when the event happened, RFC 3339 (validated at the edge) */
  | { type: 'TrackEvent'; accountId: string; eventId: string; name: string; properties: Record<string, unknown>; timestamp: string; now: Date; source?: 'browser' }
  /** `deviceId`: the id a new device gets (a token the contact has keeps its own) */
  | { type: 'RegisterDevice'; accountId: string; deviceId: string; token: string; platform: DevicePlatform; appId?: string; now: Date }
  /** the API's removal of one device (404 when the contact has no such active device) */
  | { type: 'RemoveDevice'; accountId: string; deviceId: string; now: Date }
  /** a token the contact no longer holds: unregistered by its provider, or replaced (moved to another contact); nothing when it has no such token */
  | { type: 'RemoveDeviceToken'; accountId: string; token: string; reason: 'unregistered' | 'replaced'; now: Date }
  /** a form submission's consent (once per submission: a confirmation retried records nothing more) */
  | { type: 'RecordConsent'; accountId: string; consent: Omit<ContactConsentRecordedData, 'account_id' | 'id' | 'at'>; now: Date };

/** The addresses among some contact fields (what messages to the contact are sent to). */
const addressesIn = (f: ContactFields) => [f.email, f.phone].filter((a): a is string => typeof a === 'string' && a.length > 0);
const withAddresses = (known: string[], more: string[]) => [...new Set([...known, ...more])];

/** Custom values must match a live definition; `null` (removal) is allowed for any key, defined or not. */
function checkCustom(values: Record<string, unknown>, definitions: FieldDefinition[], allowNull: boolean): void {
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  const issues: Issue[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (value === null && allowNull) continue;
    const def = byKey.get(key);
    if (!def) {
      issues.push({ path: `custom_fields.${key}`, message: `no custom field with key "${key}" is defined` });
      continue;
    }
    const problem = checkCustomValue(def, value);
    if (problem) issues.push({ path: `custom_fields.${key}`, message: problem });
  }
  if (issues.length) throw validationError(issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues);
}

function visible(state: ContactState, accountId: string) {
  // another account's contact is exactly as invisible as a missing one
  if (state.status !== 'active' || state.accountId !== accountId) throw notFound('contact');
}

export const contactDecider: Decider<ContactCommand, ContactState, ContactEvent> = {
  initialState: { status: 'none', fields: {}, custom: {}, addresses: [] },
  evolve(state, event) {
    switch (event.type) {
      case 'ContactCreated':
        return {
          status: 'active', id: event.data.id, accountId: event.data.account_id, fields: { ...event.data.fields }, custom: { ...event.data.custom_fields },
          createdAt: event.data.created_at, updatedAt: event.data.created_at, addresses: addressesIn(event.data.fields),
        };
      case 'ContactUpdated': {
        const custom = { ...state.custom };
        for (const [k, v] of Object.entries(event.data.custom_fields)) {
          if (v === null) delete custom[k];
          else custom[k] = v;
        }
        return { ...state, fields: { ...state.fields, ...event.data.changes }, custom, updatedAt: event.data.updated_at, addresses: withAddresses(state.addresses, addressesIn(event.data.changes)) };
      }
      case 'ContactDeleted':
        // a deleted contact's devices go with it (README "Push devices")
        return { ...state, status: 'deleted', devices: [] };
      case 'ContactBounced':
        return { ...state, bounces: (state.bounces ?? 0) + 1, addresses: withAddresses(state.addresses, [event.data.email]) };
      case 'ContactErased':
        return { ...state, status: 'erased', fields: {}, custom: {}, addresses: [], devices: [] };
      case 'ContactDeviceRegistered': {
        const d = event.data;
        const devices = state.devices ?? [];
        const known = devices.find((x) => x.device_id === d.device_id);
        const device: ContactDevice = {
          device_id: d.device_id, token: d.token, platform: d.platform, ...(d.app_id !== undefined ? { app_id: d.app_id } : {}),
          created_at: known?.created_at ?? d.at, last_registered_at: d.at,
        };
        return { ...state, devices: known ? devices.map((x) => (x === known ? device : x)) : [...devices, device] };
      }
      case 'ContactDeviceRemoved':
        return { ...state, devices: (state.devices ?? []).filter((x) => x.device_id !== event.data.device_id) };
      case 'ContactConsentRecorded':
        return { ...state, consents: [...(state.consents ?? []), event.data.submission_id] };
      case 'EventTracked':
        // the contact's history, not its state: a contact with a million events folds as small as one with none
        return state;
    }
  },
  decide(command, state) {
    const at = command.now.toISOString();
    switch (command.type) {
      case 'CreateContact':
        if (state.status !== 'none') throw new AppError(409, 'conflict', 'contact already exists');
        checkCustom(command.custom, command.definitions, false);
        return [{ type: 'ContactCreated', data: { account_id: command.accountId, id: command.id, fields: command.fields, custom_fields: command.custom, created_at: at } }];
      case 'UpdateContact': {
        visible(state, command.accountId);
        checkCustom(command.custom, command.definitions, true);
        // record only what actually changes, so the history says what happened
        const changes: ContactFields = {};
        for (const [k, v] of Object.entries(command.changes) as [StandardField, unknown][]) {
          if (JSON.stringify(state.fields[k] ?? null) !== JSON.stringify(v ?? null)) (changes as Record<string, unknown>)[k] = v;
        }
        const custom: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(command.custom)) {
          if (JSON.stringify(state.custom[k] ?? null) !== JSON.stringify(v)) custom[k] = v;
        }
        if (Object.keys(changes).length === 0 && Object.keys(custom).length === 0) return [];
        return [{ type: 'ContactUpdated', data: { account_id: command.accountId, id: state.id!, changes, custom_fields: custom, updated_at: at } }];
      }
      case 'DeleteContact':
        visible(state, command.accountId);
        return [{ type: 'ContactDeleted', data: { account_id: command.accountId, id: state.id!, deleted_at: at } }];
      case 'RecordBounce':
        visible(state, command.accountId);
        return [
          {
            type: 'ContactBounced',
            data: { account_id: command.accountId, id: state.id!, email: command.email, reason: command.reason, ...(command.messageId ? { message_id: command.messageId } : {}), at },
          },
        ];
      case 'EraseContact': {
        // a deleted contact's data is still in its events: it can (and should) be erased too
        if (state.status === 'none' || state.accountId !== command.accountId) throw notFound('contact');
        if (state.status === 'erased') return [];
        const data: ContactErasedData = {
          account_id: command.accountId, id: state.id!, erasure_id: command.erasureId, key_ids: command.keyIds, address_hashes: command.addressHashes,
          reason: command.reason ?? null, erased_by: command.erasedBy, erased_at: at,
        };
        return [{ type: 'ContactErased', data }];
      }
      case 'TrackEvent': {
        visible(state, command.accountId);
        const happened = Date.parse(command.timestamp);
        if (happened - command.now.getTime() > MAX_EVENT_AHEAD_MS) {
          throw invalidField('timestamp', 'must not be more than 24 hours in the future');
        }
        return [
          {
            type: 'EventTracked',
            data: {
              account_id: command.accountId, contact_id: state.id!, event_id: command.eventId, ...(command.source ? { source: command.source } : {}),
              name: command.name, properties: command.properties, timestamp: new Date(happened).toISOString(), received_at: at,
            },
          },
        ];
      }
      case 'RegisterDevice': {
        visible(state, command.accountId);
        const devices = state.devices ?? [];
        const base = { account_id: command.accountId, id: state.id! };
        const registered = (deviceId: string): ContactEvent => ({
          type: 'ContactDeviceRegistered',
          data: { ...base, device_id: deviceId, token: command.token, platform: command.platform, ...(command.appId !== undefined ? { app_id: command.appId } : {}), at },
        });
        const known = devices.find((d) => d.token === command.token);
        // the token the contact has: the same device, changed only when its platform or app is
        if (known) return known.platform === command.platform && known.app_id === command.appId ? [] : [registered(known.device_id)];
        // past the cap, the oldest registration goes first
        const over = devices.slice(0, Math.max(0, devices.length - MAX_DEVICES_PER_CONTACT + 1));
        return [
          ...over.map((d): ContactEvent => ({ type: 'ContactDeviceRemoved', data: { ...base, device_id: d.device_id, reason: 'replaced', at } })),
          registered(command.deviceId),
        ];
      }
      case 'RemoveDevice': {
        visible(state, command.accountId);
        if (!(state.devices ?? []).some((d) => d.device_id === command.deviceId)) throw notFound('device');
        return [{ type: 'ContactDeviceRemoved', data: { account_id: command.accountId, id: state.id!, device_id: command.deviceId, reason: 'removed', at } }];
      }
      case 'RecordConsent': {
        visible(state, command.accountId);
        if (state.consents?.includes(command.consent.submission_id)) return [];
        return [{ type: 'ContactConsentRecorded', data: { account_id: command.accountId, id: state.id!, ...command.consent, at } }];
      }
      case 'RemoveDeviceToken': {
        if (state.status === 'none' || state.accountId !== command.accountId) throw notFound('contact');
        const device = (state.devices ?? []).find((d) => d.token === command.token);
        if (!device) return [];
        return [{ type: 'ContactDeviceRemoved', data: { account_id: command.accountId, id: state.id!, device_id: device.device_id, reason: command.reason, at } }];
      }
    }
  },
};

export const contactStream = (id: string) => `contact-${id}`;
/** The events that change a contact (what the contacts read model follows); EventTracked is not one. */
export const CONTACT_EVENT_TYPES = ['ContactCreated', 'ContactUpdated', 'ContactDeleted', 'ContactBounced', 'ContactErased'] as const;
/** What the contact did (POST /v1/events), on the same stream. */
export const TRACKED_EVENT_TYPES = ['EventTracked'] as const;
/** The contact's push devices (README "Push devices"), on the same stream; the contacts read model does not follow them. */
export const DEVICE_EVENT_TYPES = ['ContactDeviceRegistered', 'ContactDeviceRemoved'] as const;
/** The consents the contact gave (README "Signup forms"), on the same stream; no read model follows them. */
export const CONSENT_EVENT_TYPES = ['ContactConsentRecorded'] as const;
