// One replay's walk through the log: from its cursor towards `until`, only the log event types that
// become the platform events it replays, keeping its account's events; those (and only those) are
// opened, and become deliveries through the same payload code as live ones (deliveriesFor). Events
// read beyond what one step takes wait in memory for the next step, so the window's small refills
// do not re-read the log.
import { messageStream } from '../../commands/message.ts';
import type { MessageAcceptedData, MessageEvent } from '../../commands/message.ts';
import { hookOfAccepted, messageHooksFor, openHooks } from '../../projections/webhook-message-hooks.ts';
import { type DeliveryDraft, deliveriesFor, type EndpointSubscription, LOG_TYPES_OF_PLATFORM_EVENT, type MessageHook } from '../../projections/webhook-payloads.ts';
import type { WebhookReplayRow } from '../../projections/webhook-replays.ts';
import type { Engage } from '../context.ts';
import { comparePositions, parsePosition, type Position, positionToString, type RecordedEvent } from '../eventstore/port.ts';
import { openEvents } from '../personal-data/store.ts';
import { scanStart } from './replay-range.ts';

/** events read per readAll */
const READ_BATCH = 1000;
/** reads per step at most: a sparse account's step still ends (and its cursor is kept) */
const READS_PER_STEP = 20;

export interface ScanStep {
  /** the deliveries to add */
  drafts: DeliveryDraft[];
  /** what the scan has taken in: the cursor to store with the drafts */
  cursor: Position;
  /** the scan reached `until` */
  done: boolean;
}

export class ReplayScan {
  private readonly from: Position;
  private readonly until: Position;
  private readonly logTypes: string[];
  /** events read and not yet taken, in log order, all after `queuedAfter` */
  private queue: RecordedEvent[] = [];
  private queuedAfter?: string;
  /** the last position read (the next read's start) */
  private readTo?: Position;
  private exhausted = false;

  constructor(
    private readonly engage: Engage,
    private readonly replay: Pick<WebhookReplayRow, 'id' | 'account_id' | 'endpoint_id' | 'from_position' | 'until_position' | 'types'>,
  ) {
    this.from = parsePosition(replay.from_position);
    this.until = parsePosition(replay.until_position);
    this.logTypes = [...new Set(replay.types.flatMap((t) => LOG_TYPES_OF_PLATFORM_EVENT[t] ?? []))];
  }

  /** The next step from `cursor` (null: the start): at most `room` deliveries to `endpoint`. */
  async next(cursor: string | null, room: number, endpoint: { url: string }): Promise<ScanStep> {
    let position = cursor === null ? scanStart(this.engage.store.kind, this.from) : parsePosition(cursor);
    if (this.queuedAfter !== positionToString(position)) this.restartAt(position);
    const taken: RecordedEvent[] = [];
    let done = this.logTypes.length === 0;
    let reads = 0;
    while (!done && taken.length < room) {
      if (this.queue.length === 0) {
        if (this.exhausted || reads >= READS_PER_STEP) {
          done = this.exhausted;
          break;
        }
        await this.read();
        reads++;
        continue;
      }
      const e = this.queue[0]!;
      if (comparePositions(e.position, this.until) > 0) {
        done = true;
        break;
      }
      this.queue.shift();
      position = e.position;
      if (comparePositions(e.position, this.from) >= 0 && (e.data as { account_id?: string }).account_id === this.replay.account_id) taken.push(e);
    }
    if (done) position = this.until;
    this.queuedAfter = positionToString(position);
    return { drafts: await this.draftsOf(taken, endpoint), cursor: position, done };
  }

  private restartAt(position: Position): void {
    this.queue = [];
    this.readTo = position;
    this.exhausted = false;
  }

  private async read(): Promise<void> {
    // sealed: the other accounts' events are skipped unopened
    const batch = await this.engage.store.readAll({ after: this.readTo, maxCount: READ_BATCH, types: this.logTypes, keepSealed: true });
    this.queue.push(...batch);
    if (batch.length) this.readTo = batch[batch.length - 1]!.position;
    // everything up to `until` was readable when the replay was requested: a short read is the end
    this.exhausted = batch.length < READ_BATCH || comparePositions(this.readTo!, this.until) >= 0;
  }

  private async draftsOf(sealed: RecordedEvent[], endpoint: { url: string }): Promise<DeliveryDraft[]> {
    if (!sealed.length) return [];
    const events = await openEvents(this.engage.pool, sealed);
    const hooks = await this.hooksOf(events);
    const subscription: EndpointSubscription = { id: this.replay.endpoint_id, account_id: this.replay.account_id, url: endpoint.url, events: this.replay.types, status: 'active' };
    const drafts: DeliveryDraft[] = [];
    for (const e of events) {
      const hook = e.type.startsWith('Message') ? hooks.get((e.data as { id: string }).id) : undefined;
      // only the endpoint's own deliveries: a message's webhook_url and the inbound URL are not replayed
      for (const d of deliveriesFor(e, { endpoints: [subscription], ...(hook ? { hook } : {}) })) if (d.kind === 'endpoint' && d.endpoint_id === subscription.id) drafts.push(d);
    }
    return drafts;
  }

  /** The hooks of the messages among the events: as the outbox keeps them, else (a message older than hooks for every message) from the message's stream. */
  private async hooksOf(events: RecordedEvent[]): Promise<Map<string, MessageHook>> {
    const ids = [...new Set(events.filter((e) => e.type.startsWith('Message')).map((e) => (e.data as { id: string }).id))];
    const hooks = await messageHooksFor(this.engage.pool, ids);
    for (const id of ids.filter((i) => !hooks.has(i))) {
      const hook = await hookFromStream(this.engage, id);
      if (hook) hooks.set(id, hook);
    }
    return hooks;
  }
}

async function hookFromStream(engage: Engage, messageId: string): Promise<MessageHook | undefined> {
  const history = (await engage.store.readStream(messageStream(messageId))) as unknown as MessageEvent[];
  const accepted = history.find((e) => e.type === 'MessageAccepted');
  if (!accepted) return undefined;
  const hook = hookOfAccepted(accepted.data as MessageAcceptedData);
  const sent = history.find((e) => e.type === 'MessageSent');
  if (sent?.type === 'MessageSent') hook.provider_message_id = sent.data.provider_message_id;
  return (await openHooks(engage.pool, [hook]))[0];
}
