// Push devices of contacts (README "Push devices"): registering a token for a contact, moving it from
// another contact of the account that has it, removing a device, and removing a token its provider
// says is no longer registered. The events are the contact's (commands/contact.ts); a token is active
// on at most one contact of an account.
//
// Who has a token is known two ways: a claim (src/claims.ts, kind `push_token`: its keyed hash, never
// the token) names the contact the last registration gave it to, and the push_devices read model
// shows every contact it is active on. A registration takes the claim over (compare-and-set), then
// appends the removal from every contact that has the token and its own registration in one
// appendMany at the revisions it decided on: all or nothing on Postgres, removals first on
// EventStoreDB. A registration that meets the claim of one whose append is still on its way waits for
// it; one that meets another's change retries on the new state. README "Push devices" says why.
import {
  contactDecider, contactStream, type ContactDevice, type ContactEvent, type ContactState, type DevicePlatform,
} from '../../commands/contact.ts';
import { contactsHoldingToken, type PushDeviceRow } from '../../projections/push-devices.ts';
import { claimOrHolders, release, transferMany } from '../claims.ts';
import { handleCommand } from '../command-handler.ts';
import type { Engage } from '../context.ts';
import { fold } from '../decider.ts';
import { conflict, notFound } from '../errors.ts';
import { comparePositions, type EventMetadata, type ExpectedRevision, type Position, WrongExpectedVersionError } from '../eventstore/port.ts';
import { newId } from '../ids.ts';
import { sleep } from '../sleep.ts';

/** The read models a device write's answer waits for. */
export const DEVICE_READ_MODELS = ['push_devices'];

/** The claims naming which contact of an account a token was last registered to. */
const tokenScope = (accountId: string) => ({ accountId, kind: 'push_token' });

/** How long a claim whose owner does not show the token yet counts as a registration still being appended. */
const IN_FLIGHT_MS = 5_000;
/** How long a registration keeps trying while others change the same token or contacts, before a 409. */
const TRY_FOR_MS = 10_000;

export interface DeviceInput {
  token: string;
  platform: DevicePlatform;
  app_id?: string;
}

/** A device as the API shows it. */
export interface DeviceView {
  id: string;
  contact_id: string;
  token: string;
  platform: DevicePlatform;
  app_id: string | null;
  created_at: string;
  last_registered_at: string;
}

export const deviceView = (contactId: string, d: ContactDevice): DeviceView => ({
  id: d.device_id, contact_id: contactId, token: d.token, platform: d.platform, app_id: d.app_id ?? null, created_at: d.created_at, last_registered_at: d.last_registered_at,
});

export const deviceOut = (r: PushDeviceRow): DeviceView => ({
  id: r.device_id, contact_id: r.contact_id, token: r.token, platform: r.platform, app_id: r.app_id,
  created_at: r.created_at.toISOString(), last_registered_at: r.last_registered_at.toISOString(),
});

interface Loaded {
  state: ContactState;
  revision: ExpectedRevision;
}

async function load(engage: Engage, contactId: string): Promise<Loaded> {
  const recorded = await engage.store.readStream(contactStream(contactId));
  return {
    state: fold(contactDecider, recorded.map((r) => ({ type: r.type, data: r.data }) as ContactEvent)),
    revision: recorded.length ? recorded[recorded.length - 1].revision : 'no_stream',
  };
}

const holds = (state: ContactState, token: string) => (state.devices ?? []).some((d) => d.token === token);

/** The contact's active device with this token (the one just registered). */
const deviceWith = (state: ContactState, token: string) => (state.devices ?? []).find((d) => d.token === token)!;

/**
 * Registers `input.token` for the contact (a live one of the account, else 404): a new device
 * (`created`), or the one the contact has with this token (changed when its platform or app is).
 * Another contact of the account that has the token loses it (ContactDeviceRemoved, `replaced`) in the
 * same append.
 */
export async function registerDevice(
  engage: Engage,
  accountId: string,
  contactId: string,
  input: DeviceInput,
  metadata: EventMetadata,
): Promise<{ device: DeviceView; created: boolean; position?: Position }> {
  const { token } = input;
  const scope = tokenScope(accountId);
  const deviceId = newId('device');
  const deadline = Date.now() + TRY_FOR_MS;
  for (let attempt = 1; ; attempt++) {
    const mine = await load(engage, contactId);
    if (mine.state.status !== 'active' || mine.state.accountId !== accountId) throw notFound('contact');
    // who has the token: the claim's owner (the claim taken for this contact when nobody holds it),
    // and every contact the read model shows with it (it may be behind the claim, never ahead of the log)
    const holder = (await claimOrHolders(engage.pool, scope, [{ value: token, owner: contactId }])).get(token);
    const others = new Set(await contactsHoldingToken(engage.pool, accountId, token));
    if (holder) others.add(holder.owner);
    others.delete(contactId);
    const losing: (Loaded & { id: string })[] = [];
    let inFlight = false;
    for (const id of others) {
      const other = await load(engage, id);
      if (other.state.accountId === accountId && holds(other.state, token)) losing.push({ id, ...other });
      // its registration took the claim moments ago and is not in its stream yet
      else if (id === holder?.owner && holder.ageMs < IN_FLIGHT_MS) inFlight = true;
    }
    const retry = async () => {
      if (Date.now() > deadline) throw conflict('this device token is being registered by another request at the same time; send it again');
      await sleep(5 + Math.random() * 10 * Math.min(attempt, 10));
    };
    if (inFlight) {
      await retry();
      continue;
    }
    // the claim follows the token: this contact's from now on (handed back if the append fails)
    const from = holder && holder.owner !== contactId ? holder.owner : undefined;
    if (from !== undefined && !(await transferMany(engage.pool, scope, [{ value: token, from, to: contactId }])).has(token)) {
      await retry();
      continue;
    }
    const now = engage.clock.now();
    const events = contactDecider.decide({ type: 'RegisterDevice', accountId, deviceId, token, platform: input.platform, appId: input.app_id, now }, mine.state);
    const batch = [
      // removals first: where the batch is not atomic (EventStoreDB) a failure half-way leaves the token on no contact, never on two
      ...losing.map((o) => ({
        streamId: contactStream(o.id),
        events: contactDecider.decide({ type: 'RemoveDeviceToken', accountId, token, reason: 'replaced', now }, o.state),
        expected: o.revision,
      })),
      { streamId: contactStream(contactId), events, expected: mine.revision },
    ].filter((b) => b.events.length > 0);
    let position: Position | undefined;
    try {
      const results = batch.length ? await engage.store.appendMany(batch.map((b) => ({ ...b, events: b.events.map((e) => ({ type: e.type, data: e.data, metadata })) }))) : [];
      for (const r of results) if (!position || comparePositions(r.position, position) > 0) position = r.position;
    } catch (err) {
      if (from !== undefined) await transferMany(engage.pool, scope, [{ value: token, from: contactId, to: from }]).catch(() => undefined);
      if (!(err instanceof WrongExpectedVersionError)) throw err;
      await retry();
      continue;
    }
    let state = mine.state;
    for (const e of events) state = contactDecider.evolve(state, e);
    const device = deviceWith(state, token);
    return { device: deviceView(contactId, device), created: device.device_id === deviceId, position };
  }
}

/** Removes one device of the contact (the API's DELETE): 404 for a contact or device it does not have. */
export async function removeDevice(engage: Engage, accountId: string, contactId: string, deviceId: string, metadata: EventMetadata): Promise<{ position?: Position }> {
  const before = await load(engage, contactId);
  const token = (before.state.devices ?? []).find((d) => d.device_id === deviceId)?.token;
  const result = await handleCommand(engage.store, contactDecider, contactStream(contactId), { type: 'RemoveDevice', accountId, deviceId, now: engage.clock.now() }, metadata);
  if (token !== undefined) await release(engage.pool, tokenScope(accountId), token, contactId);
  return { position: result.position };
}

/**
 * The token is no longer registered with its provider (the dispatcher learns it from a push that
 * failed): the contact's device with it is removed, reason `unregistered`. Nothing when the contact
 * has no such device (removed already, moved, a deleted contact); 404 for a contact of no account's.
 */
export async function unregisterDevice(
  engage: Engage,
  accountId: string,
  contactId: string,
  token: string,
  metadata: EventMetadata = { accountId, actor: 'system' },
): Promise<{ position?: Position }> {
  const result = await handleCommand(
    engage.store, contactDecider, contactStream(contactId), { type: 'RemoveDeviceToken', accountId, token, reason: 'unregistered', now: engage.clock.now() }, metadata,
  );
  if (result.events.length > 0) await release(engage.pool, tokenScope(accountId), token, contactId);
  return { position: result.position };
}
