// Campaign commands (create, cancel), their views, and sending one: the audience is resolved when
// the campaign is sent, one message per member with an address on the channel (for push: its
// contact id, when it has a device) goes through the bulk path's appends (suppressions, the
// marketing cap and quiet hours apply at dispatch, as for any message), and campaign.sent follows
// once every message is accepted.
//
// Exactly once: each batch's messages and the campaign's CampaignBatchAccepted (naming the last
// contact covered) are one appendMany at the campaign stream's revision. On postgres that is one
// transaction: a send that stops (crash, restart) resumes after the last recorded batch and never
// sends a member twice. The message ids and event ids are derived from (campaign, contact), so a
// batch repeated on a store whose appendMany is not atomic (esdb) finds the messages it wrote.
import {
  type Audience, type CampaignState, type CampaignTemplate, campaignDecider, campaignStream,
} from '../../commands/campaign.ts';
import type { CampaignRow } from '../../projections/campaigns.ts';
import { campaignMessageCounts } from '../../projections/messages.ts';
import type { Engage } from '../context.ts';
import { handleCommand } from '../command-handler.ts';
import { fold } from '../decider.ts';
import { validationError } from '../errors.ts';
import { type EventMetadata, type NewEvent, type Position, WrongExpectedVersionError } from '../eventstore/port.ts';
import { derivedUuid, newId } from '../ids.ts';
import { acceptedEventId, newMessageStream } from '../messages/accepted.ts';
import { sealedForAppend } from '../messages/append-accepted.ts';
import { audienceExists, audiencePage, audienceReadModels, type Member, memberAddress } from './audience.ts';
import { type CampaignMessage, type CampaignRender, campaignMessages } from './messages.ts';
import { messageDecider } from '../../commands/message.ts';
import { findContacts } from '../../projections/contacts.ts';
import { sendableTemplateVersion } from '../../projections/templates.ts';
import { readsContact } from '../templates/render.ts';
import { renderContext } from '../templates/service.ts';

/** Members per batch: one appendMany of this many message streams and the campaign's progress. */
export const CAMPAIGN_BATCH = 5000;
/** Pages of members read, built and sealed ahead of the batch being appended. */
const PAGES_AHEAD = 3;
/** Members per CPU work task when a batch's messages are built. */
const MEMBERS_SLICE = 1000;
/** How long a send waits for the audience's read models to include every earlier write. */
const AUDIENCE_WAIT_MS = 10_000;

export interface CampaignInput {
  name: string;
  audience: Audience;
  template: CampaignTemplate;
  scheduledAt?: Date;
}

export async function createCampaign(engage: Engage, accountId: string, input: CampaignInput, metadata: EventMetadata) {
  if (!(await audienceExists(engage.pool, accountId, input.audience))) {
    const path = `audience.${input.audience.type}_id`;
    throw validationError(`${path}: no such ${input.audience.type}`, [{ path, message: `no such ${input.audience.type}` }]);
  }
  const id = newId('campaign');
  const result = await handleCommand(engage.store, campaignDecider, campaignStream(id), { type: 'CreateCampaign', accountId, id, ...input, now: engage.clock.now() }, metadata);
  return { id, state: result.state, position: result.position };
}

export async function cancelCampaign(engage: Engage, accountId: string, id: string, metadata: EventMetadata) {
  const result = await handleCommand(engage.store, campaignDecider, campaignStream(id), { type: 'CancelCampaign', accountId, now: engage.clock.now() }, metadata);
  return { id, state: result.state, position: result.position };
}

/** A campaign's state from its own stream (what a write answers with before the read model has it). */
export async function loadCampaign(engage: Engage, id: string): Promise<CampaignState> {
  const events = await engage.store.readStream(campaignStream(id));
  return fold(campaignDecider, events.map((e) => ({ type: e.type, data: e.data }) as never));
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const audienceOut = (type: string, id: string) => (type === 'list' ? { list_id: id } : { segment_id: id });

/** A campaign as the API shows it (GET adds `messages`, the counts by message status). */
export function campaignOut(r: CampaignRow) {
  return {
    id: r.id,
    name: r.name,
    audience: audienceOut(r.audience_type, r.audience_id),
    ...r.template,
    status: r.status,
    scheduled_at: iso(r.scheduled_at),
    accepted: r.accepted,
    skipped: r.skipped,
    failure_reason: r.failure_reason,
    created_at: iso(r.created_at),
    started_at: iso(r.started_at),
    sent_at: iso(r.sent_at),
    cancelled_at: iso(r.cancelled_at),
    failed_at: iso(r.failed_at),
  };
}

/** The view from the stream's state, for a write whose read model is late. */
export function campaignView(id: string, s: CampaignState) {
  return {
    id,
    name: s.name,
    audience: audienceOut(s.audience!.type, s.audience!.id),
    ...s.template,
    status: s.status,
    scheduled_at: s.scheduledAt ?? null,
    accepted: s.accepted,
    skipped: s.skipped,
    created_at: s.createdAt ?? null,
    started_at: s.startedAt ?? null,
  };
}

export async function campaignWithCounts(engage: Engage, r: CampaignRow) {
  return { ...campaignOut(r), messages: await campaignMessageCounts(engage.pool, r.account_id, r.id) };
}

/**
 * Sends a due campaign to the end (or resumes one that stopped): starts the send, then appends one
 * batch of messages after another until the audience is exhausted, then records it sent. Returns
 * the newest position it wrote.
 */
export async function sendCampaign(engage: Engage, id: string, metadata: EventMetadata, batchSize = CAMPAIGN_BATCH): Promise<Position | undefined> {
  const stream = campaignStream(id);
  const started = await handleCommand(engage.store, campaignDecider, stream, { type: 'StartSend', now: engage.clock.now() }, metadata);
  let { state, revision, position } = started;
  if (state.status !== 'sending') return position;
  const accountId = state.accountId!;
  const template = state.template!;
  const addressField = memberAddress(template.channel);
  // "resolved when it is sent": every write made before the send started is in the audience
  await engage.runner.waitFor(audienceReadModels(addressField), await engage.store.headPosition({ includeHeldBack: true }), AUDIENCE_WAIT_MS);
  const startedAt = state.startedAt!;
  // a campaign that names a template: its version (the newest now, unless it names one), rendered
  // for each member as its batch is built
  const render = template.template_id === undefined ? undefined : await campaignRender(engage, accountId, template.template_id, template.template_version);
  if (render === null) {
    const failed = await handleCommand(engage.store, campaignDecider, stream, { type: 'FailSend', reason: 'its template has no such version', now: engage.clock.now() }, metadata);
    return failed.position ?? position;
  }
  const withContact = render !== undefined && readsContact(render.version);
  // a page of members and its messages, built (on the CPU work threads: the recipients' country
  // parse) and sealed (their data keys made) ready for the append. `after`: where the page starts,
  // known once the page before it is read; null after a last page (nothing more is read)
  const prepare = (after: Promise<{ id: string | undefined } | null>) => {
    const members = after.then(async (from) => {
      if (from === null) return [];
      const page = await audiencePage(engage.pool, accountId, state.audience!, { after: from.id, limit: batchSize, now: new Date(startedAt) }, addressField);
      return page && withContact ? withContacts(engage, accountId, page) : page;
    });
    const prepared = members.then(async (members) => {
      if (members === undefined || members.length === 0) return { members, streams: [], accepted: 0 };
      const now = engage.clock.now();
      const input = (slice: Member[]) => ({ campaignId: id, accountId, template, addressField, members: slice, startedAt, now, ...(render ? { render } : {}) });
      const messages = await engage.cpu.runSlices('campaignMessages', members, MEMBERS_SLICE, input, (slice) => campaignMessages(input(slice)), 'background');
      const streams = await sealedForAppend(engage, messages.map((m) => campaignMessageStream(m, metadata, now)));
      return { members, streams, accepted: messages.length, now };
    });
    // awaited (and their errors thrown) when used; never an unhandled rejection when dropped
    members.catch(() => undefined);
    prepared.catch(() => undefined);
    return { members, prepared };
  };
  // the next pages are read, built and sealed while the batch before them is being appended: each
  // page is read as soon as the one before it is (keyset order), and built and sealed beside it
  let ahead: ReturnType<typeof prepare>[] = [];
  const fill = () => {
    while (ahead.length < PAGES_AHEAD) {
      const last = ahead.at(-1);
      ahead.push(prepare(last ? last.members.then((m) => (m && m.length > 0 ? { id: m[m.length - 1].id } : null)) : Promise.resolve({ id: state.throughContactId })));
    }
  };
  for (;;) {
    fill();
    const { members, streams, accepted, now = engage.clock.now() } = await ahead.shift()!.prepared;
    if (members === undefined) {
      const failed = await handleCommand(engage.store, campaignDecider, stream, { type: 'FailSend', reason: `the ${state.audience!.type} was deleted`, now }, metadata);
      return failed.position ?? position;
    }
    if (members.length === 0) {
      const sent = await handleCommand(engage.store, campaignDecider, stream, { type: 'CompleteSend', now }, metadata);
      return sent.position ?? position;
    }
    const through = members[members.length - 1].id;
    const record = campaignDecider.decide({ type: 'RecordBatch', throughContactId: through, accepted, skipped: members.length - accepted, now }, state);
    const progress = { streamId: stream, events: record.map((e): NewEvent => ({ ...e, metadata, id: derivedUuid(id, 'batch', through) })), expected: revision };
    fill();
    try {
      const results = await engage.store.appendMany([...streams, progress]);
      const own = results[results.length - 1];
      for (const e of record) state = campaignDecider.evolve(state, e);
      revision = own.nextExpectedRevision;
      position = own.position;
    } catch (err) {
      // a message stream that conflicts is taken by something else: not for this loop to settle
      if (!(err instanceof WrongExpectedVersionError) || err.streamId !== stream) throw err;
      // another sender recorded a batch first: carry on after what it covered
      const events = await engage.store.readStream(stream);
      state = fold(campaignDecider, events.map((e) => ({ type: e.type, data: e.data }) as never));
      revision = events[events.length - 1].revision;
      if (state.status !== 'sending') return position;
      // the pages read ahead start after what this loop covered, not what the other sender did
      ahead = [];
    }
  }
}

/** The version a templated campaign sends (of a deleted template too: its versions stay), with the account's name and strictness; null when it has no such version. */
async function campaignRender(engage: Engage, accountId: string, templateId: string, version: number | undefined): Promise<CampaignRender | null> {
  const row = await sendableTemplateVersion(engage.pool, accountId, templateId, version);
  if (!row) return null;
  return {
    version: { id: row.id, channel: row.channel, version: row.version, content: { name: row.name, subject: row.subject, text: row.text, html: row.html } },
    ...(await renderContext(engage, accountId)),
  };
}

/** A page's members, each with its contact's fields (as the contacts read model shows them now). */
async function withContacts(engage: Engage, accountId: string, members: Member[]) {
  const contacts = new Map((await findContacts(engage.pool, accountId, members.map((m) => m.id))).map((c) => [c.id, c]));
  return members.map((m) => ({ ...m, contact: contacts.get(m.id) }));
}

/**
 * A campaign message's new stream: accepted, and, when its render failed, failed in the same append
 * (reason `template_error`; its event id derived from the message, as the acceptance's is, so a
 * repeated batch finds it).
 */
function campaignMessageStream(m: CampaignMessage, metadata: EventMetadata, now: Date) {
  const stream = newMessageStream(m.data, metadata, acceptedEventId(m.data.id));
  if (m.templateError === undefined) return stream;
  const accepted = messageDecider.evolve(messageDecider.initialState, { type: 'MessageAccepted', data: m.data });
  const failed = messageDecider.decide({ type: 'RecordFailed', now, reason: `template_error: ${m.templateError}`, stage: 'policy' }, accepted);
  return { ...stream, events: [...stream.events, ...failed.map((e): NewEvent => ({ ...e, metadata, id: derivedUuid(m.data.id, 'template_error') }))] };
}
