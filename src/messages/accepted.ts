// A message's MessageAccepted: its data from one valid send, the record a send answers with, and
// the new stream an append writes it to. Light on imports: a CPU work thread builds a campaign's
// messages with it (src/cpu-work/tasks.ts).
import { randomUUID } from 'node:crypto';
import { messageDecider, messageStream, type MessageAcceptedData } from '../../commands/message.ts';
import type { EventMetadata, NewEvent } from '../eventstore/port.ts';
import { derivedUuid, newId } from '../ids.ts';
import type { ValidSend } from './validation.ts';
import { toCountryField } from '../billing/recipient-country.ts';

export interface MessageRecord {
  id: string;
  status: 'scheduled' | 'queued';
  channel: string;
  to: string;
  scheduled_at: string | null;
  created_at: string;
}

export const acceptedRecord = (d: MessageAcceptedData): MessageRecord => ({
  id: d.id,
  status: d.status,
  channel: d.channel,
  to: d.to,
  scheduled_at: d.scheduled_at ?? null,
  created_at: d.created_at,
});

/** `now` as ISO text, the last one kept: a bulk's thousands of messages share one `now`. */
let lastNow = { time: Number.NaN, iso: '' };
const isoOf = (now: Date) => (now.getTime() === lastNow.time ? lastNow.iso : (lastNow = { time: now.getTime(), iso: now.toISOString() }).iso);

/**
 * The MessageAccepted data of one valid send, accepted `now` (scheduled when it names a later time).
 * Built field by field: the content's fields, then account_id, id, status, scheduled_at, resend_of,
 * bulk_id, campaign_id, template_id and template_version, to_country and created_at, each only when
 * it has a value.
 */
export function acceptedData(
  accountId: string,
  item: ValidSend,
  now: Date,
  extra: { id?: string; resendOf?: string; bulkId?: string; campaignId?: string } = {},
): MessageAcceptedData {
  const scheduled = item.scheduledAt !== undefined && item.scheduledAt.getTime() > now.getTime();
  // copied key by key onto a new object: a spread of the content (itself made of optional spreads)
  // gave an object in dictionary mode, and each field added to it cost microseconds
  const data = {} as Record<string, unknown>;
  const content = item.content as unknown as Record<string, unknown>;
  for (const key in content) data[key] = content[key];
  data.account_id = accountId;
  data.id = extra.id ?? item.id ?? newId('message');
  data.status = scheduled ? 'scheduled' : 'queued';
  if (scheduled) data.scheduled_at = item.scheduledAt!.toISOString();
  if (extra.resendOf) data.resend_of = extra.resendOf;
  if (extra.bulkId) data.bulk_id = extra.bulkId;
  if (extra.campaignId) data.campaign_id = extra.campaignId;
  if (item.template) {
    data.template_id = item.template.id;
    data.template_version = item.template.version;
  }
  // the country validation found with the recipient's one parse, when it did
  const country = item.toCountry === undefined ? toCountryField(item.content.channel, item.content.to).to_country : item.toCountry;
  if (country) data.to_country = country;
  data.created_at = isoOf(now);
  return data as unknown as MessageAcceptedData;
}

/**
 * A new message's stream as an entry of an appendMany batch: the decider's Accept rule (a new
 * stream) is enforced by the no_stream expectation, and the event id is fixed here, once, so that a
 * re-sent batch is recognised where it was written.
 */
/** The id of a message's MessageAccepted where it is fixed by the message (a campaign's, a bulk intake's). */
export const acceptedEventId = (messageId: string): string => derivedUuid(messageId, 'accepted');

export function newMessageStream(data: MessageAcceptedData, metadata: EventMetadata, eventId: string = randomUUID()) {
  return {
    streamId: messageStream(data.id),
    events: messageDecider.decide({ type: 'Accept', data }, messageDecider.initialState).map((e): NewEvent => ({ ...e, metadata, id: eventId })),
    expected: 'no_stream' as const,
  };
}

