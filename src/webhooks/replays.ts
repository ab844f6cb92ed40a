// Webhook replays as the API and the CLI see them: request one (checked against the endpoint and the
// log, its window resolved to positions), read one with its progress, list them, cancel one. The
// replay worker (src/workers/webhook-replayer.ts) does the work.
import { PLATFORM_EVENTS, type PlatformEvent } from '../../commands/webhook-endpoint.ts';
import { webhookReplayDecider, webhookReplayStream } from '../../commands/webhook-replay.ts';
import type { IdRange } from '../../projections/queries.ts';
import { findWebhookEndpoint } from '../../projections/webhook-endpoints.ts';
import { replayDeliveryCounts } from '../../projections/webhook-outbox.ts';
import { findReplay, listReplays, type WebhookReplayRow } from '../../projections/webhook-replays.ts';
import { handleCommand, runCommand } from '../command-handler.ts';
import type { Engage } from '../context.ts';
import { conflict, invalidField, notFound } from '../errors.ts';
import { type EventMetadata, positionToString } from '../eventstore/port.ts';
import { newId } from '../ids.ts';
import { resolveReplayRange } from './replay-range.ts';
import { announceRevocation } from './revocations.ts';

const OUTBOX = ['webhook_outbox'];

export interface ReplayRequest {
  from: string;
  until?: string | null;
  types?: string[];
}

/** A replay as the API shows it: the job, and its deliveries by status. */
export interface ReplayView {
  id: string;
  endpoint_id: string;
  status: WebhookReplayRow['status'];
  from: string;
  until: string;
  from_input: string;
  until_input: string | null;
  types: PlatformEvent[];
  found: number;
  delivered: number;
  failed: number;
  pending: number;
  cancelled: number;
  cancel_reason: string | null;
  created_at: string;
  completed_at: string | null;
}

/** The platform events a replay delivers: those the endpoint subscribes to (none listed: all) ∩ those asked for (none: all). */
function replayTypes(subscribed: readonly string[], asked: readonly string[] | undefined): PlatformEvent[] {
  if (asked) {
    if (asked.length === 0) throw invalidField('types', 'must name at least one platform event (leave it out for every one the endpoint subscribes to)');
    const unknown = asked.filter((t) => !(PLATFORM_EVENTS as readonly string[]).includes(t));
    if (unknown.length) throw invalidField('types', `unknown: ${unknown.join(', ')}; valid: ${PLATFORM_EVENTS.join(', ')}`);
  }
  const types = PLATFORM_EVENTS.filter((t) => (subscribed.length === 0 || subscribed.includes(t)) && (!asked || asked.includes(t)));
  if (!types.length) throw invalidField('types', `the endpoint subscribes to none of these (it subscribes to ${subscribed.join(', ')})`);
  return types;
}

/** Starts a replay to one of the account's endpoints (404 another account's, 409 a disabled one). */
export async function requestReplay(engage: Engage, accountId: string, endpointId: string, input: ReplayRequest, metadata: EventMetadata): Promise<ReplayView> {
  const endpoint = await findWebhookEndpoint(engage.pool, accountId, endpointId);
  if (!endpoint) throw notFound('webhook endpoint');
  const types = replayTypes(endpoint.events, input.types);
  if (endpoint.status !== 'active') throw conflict(`the endpoint is ${endpoint.status}: enable it before replaying to it`, { status: endpoint.status });
  const range = await resolveReplayRange(engage.store, input);
  const id = newId('webhookReplay');
  const now = engage.clock.now();
  const command = {
    type: 'Request' as const, id, accountId, endpointId, from: positionToString(range.from), until: positionToString(range.until), fromInput: input.from.trim(),
    untilInput: input.until?.trim() ?? null, types, now,
  };
  await runCommand(engage, metadata, OUTBOX, { decider: webhookReplayDecider, streamId: webhookReplayStream(id), command });
  const row = await findReplay(engage.pool, accountId, endpointId, id);
  if (row) return (await viewsOf(engage, [row]))[0]!;
  // stored, but the outbox has not shown it yet (a CLI beside a busy or stopped service): as requested
  return {
    id, endpoint_id: endpointId, status: 'scanning', from: command.from, until: command.until, from_input: command.fromInput, until_input: command.untilInput, types,
    found: 0, delivered: 0, failed: 0, pending: 0, cancelled: 0, cancel_reason: null, created_at: now.toISOString(), completed_at: null,
  };
}

export async function getReplay(engage: Engage, accountId: string, endpointId: string, replayId: string): Promise<ReplayView> {
  const row = await findReplay(engage.pool, accountId, endpointId, replayId);
  if (!row) throw notFound('webhook replay');
  return (await viewsOf(engage, [row]))[0]!;
}

/** An endpoint's replays, newest first (404 for another account's endpoint). */
export async function listEndpointReplays(engage: Engage, accountId: string, endpointId: string, range: IdRange): Promise<ReplayView[]> {
  if (!(await findWebhookEndpoint(engage.pool, accountId, endpointId))) throw notFound('webhook endpoint');
  return viewsOf(engage, await listReplays(engage.pool, accountId, endpointId, range));
}

/** Cancels a replay: its deliveries still to be made are cancelled (409 once it has completed or been cancelled). */
export async function cancelReplay(engage: Engage, accountId: string, endpointId: string, replayId: string, metadata: EventMetadata): Promise<ReplayView> {
  if (!(await findReplay(engage.pool, accountId, endpointId, replayId))) throw notFound('webhook replay');
  await runCommand(engage, metadata, OUTBOX, async (m) => {
    const result = await handleCommand(engage.store, webhookReplayDecider, webhookReplayStream(replayId), { type: 'Cancel', accountId, now: engage.clock.now() }, m);
    // stored: what senders claimed before is not sent, even before the outbox has it (README "Webhook replay")
    await announceRevocation(engage.pool, replayId);
    return result;
  });
  return getReplay(engage, accountId, endpointId, replayId);
}

async function viewsOf(engage: Engage, rows: WebhookReplayRow[]): Promise<ReplayView[]> {
  const counts = await replayDeliveryCounts(engage.pool, rows.map((r) => r.id));
  return rows.map((r) => {
    const c = counts.get(r.id)!;
    return {
      id: r.id, endpoint_id: r.endpoint_id, status: r.status, from: r.from_position, until: r.until_position, from_input: r.from_input, until_input: r.until_input,
      types: r.types, found: r.found, delivered: c.delivered, failed: c.failed, pending: c.pending, cancelled: c.cancelled, cancel_reason: r.cancel_reason,
      created_at: r.created_at.toISOString(), completed_at: r.completed_at ? r.completed_at.toISOString() : null,
    };
  });
}
