// Read model of messages: history, lookups, and the work queues the scheduler and dispatcher poll,
// each a typed query below (the workers write only by appending to the message streams).
import type pg from 'pg';
import type { MessageContent, MessageEvent } from '../commands/message.ts';
import { MESSAGE_EVENT_TYPES, failureCode, failureReasonOf, isMarketing, type Channel, type MessageStatus } from '../commands/message.ts';
import { isUndefinedTable } from '../src/db/errors.ts';
import { eachOnce } from '../src/db/key-lists.ts';
import type { Migration } from '../src/db/migrations.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { ERASED, type OpenedPersonalData } from '../src/personal-data/codec.ts';
import { openEvents } from '../src/personal-data/store.ts';
import { applyDocuments, applyInOrder, type Row } from './document.ts';
import { ERASURE_EVENTS, erasedKeys, isErasure } from './erasures.ts';
import { type Db, Filters, type IdRange, type Recipient, findInAccount, listById } from './queries.ts';
import { plannedOnceFunction, prepared } from '../src/db/prepared.ts';

/** A row of the messages read model as node-postgres returns it. */
export interface MessageRow {
  id: string;
  account_id: string;
  channel: Channel;
  to_address: string;
  status: MessageStatus;
  message: string;
  htmlmessage: string | null;
  subject: string | null;
  reply_to: string | null;
  from_name: string | null;
  headers: Record<string, string> | null;
  sender: string | null;
  transactional: boolean;
  category: string | null;
  webhook_url: string | null;
  scheduled_at: Date | null;
  attempts: number;
  provider: string | null;
  provider_message_id: string | null;
  /** why the message is where it is, as a category (a failure's, a hold's, `retrying`): readable, reports group by it */
  reason: string | null;
  /** the provider's own words behind `reason` (they may name the recipient): null when none, and once the recipient is erased */
  reason_text: string | null;
  resend_of: string | null;
  bulk_id: string | null;
  campaign_id: string | null;
  created_at: Date;
  updated_at: Date;
  queued_at: Date | null;
  sent_at: Date | null;
  delivered_at: Date | null;
  failed_at: Date | null;
  cancelled_at: Date | null;
  marketing: boolean;
  not_before: Date | null;
  claimed_until: Date | null;
  /** stream revision of the last applied event */
  revision: string;
  /** the data key that seals the recipient and content in the message's events (src/personal-data) */
  personal_key: string | null;
}

export const MESSAGE_COLUMNS = [
  'id', 'account_id', 'channel', 'to_address', 'status', 'message', 'htmlmessage', 'subject', 'reply_to', 'from_name', 'headers',
  'sender', 'transactional', 'category', 'marketing', 'webhook_url', 'scheduled_at', 'not_before', 'claimed_until', 'attempts',
  'provider', 'provider_message_id', 'reason', 'reason_text', 'resend_of', 'bulk_id', 'campaign_id', 'revision', 'created_at', 'updated_at', 'queued_at',
  'sent_at', 'delivered_at', 'failed_at', 'cancelled_at', 'personal_key',
] as const satisfies readonly (keyof MessageRow)[];

/**
 * A message is kept in two tables (README "The write path"): what its MessageAccepted says and no
 * later event changes (the recipient and content; an erasure blanks them with a statement of its
 * own), and its state, which every later event rewrites. A status change then writes a narrow row
 * with few indexes, not the content with every index of the history. The view `messages` joins them
 * back into one row (MESSAGE_COLUMNS, in that order), so readers keep their SQL.
 */
const MESSAGE_CONTENT_COLUMNS = [
  'id', 'account_id', 'channel', 'to_address', 'message', 'htmlmessage', 'subject', 'reply_to', 'from_name', 'headers', 'sender', 'transactional',
  'category', 'webhook_url', 'resend_of', 'bulk_id', 'created_at', 'personal_key',
] as const satisfies readonly (typeof MESSAGE_COLUMNS)[number][];

/**
 * A message's state. `account_id`, `marketing`, `campaign_id` and `scheduled_at` are copies of what
 * MessageAccepted says, for the state's indexes (a campaign's counts by status, the scheduler's
 * queue); `marketing_to` is the recipient of a marketing message (null for any other), for the
 * marketing cap's look-up by recipient (blanked by an erasure, as the content is).
 */
const MESSAGE_STATE_COLUMNS = [
  'id', 'account_id', 'status', 'marketing', 'marketing_to', 'campaign_id', 'scheduled_at', 'not_before', 'claimed_until', 'attempts',
  'provider', 'provider_message_id', 'reason', 'reason_text', 'revision', 'updated_at', 'queued_at', 'sent_at', 'delivered_at', 'failed_at',
  'cancelled_at',
] as const;

/** The state columns a message gets from its MessageAccepted and no later event changes: a status change neither reads nor writes them. */
const FIXED_STATE_COLUMNS = ['account_id', 'marketing', 'marketing_to', 'campaign_id', 'scheduled_at'] as const satisfies readonly (typeof MESSAGE_STATE_COLUMNS)[number][];

const STATE_SET = new Set<string>(MESSAGE_STATE_COLUMNS);

/** The view `messages` over a generation's two tables: one row per message, MESSAGE_COLUMNS in order. */
function messagesView(t: (base: string) => string): string {
  // the state's id and account: a filter on them reaches the state's indexes (the join's equalities
  // carry a constant to the content's side as well)
  const columns = MESSAGE_COLUMNS.map((c) => (STATE_SET.has(c) ? `s.${c}` : `c.${c}`)).join(', ');
  return `SELECT ${columns} FROM ${t('message_contents')} c JOIN ${t('message_states')} s ON s.id = c.id AND s.account_id = c.account_id`;
}

const pick = (row: Row, columns: readonly string[]): Row => {
  const out: Row = { id: row.id };
  for (const c of columns) out[c] = row[c];
  return out;
};

/** The email-only fields a message row has set (a null column is a field the message left out). */
export function emailFieldsOf(r: Pick<MessageRow, 'htmlmessage' | 'subject' | 'reply_to' | 'from_name' | 'headers'>): Pick<MessageContent, 'htmlmessage' | 'subject' | 'reply_to' | 'from_name' | 'headers'> {
  return {
    ...(r.htmlmessage !== null ? { htmlmessage: r.htmlmessage } : {}),
    ...(r.subject !== null ? { subject: r.subject } : {}),
    ...(r.reply_to !== null ? { reply_to: r.reply_to } : {}),
    ...(r.from_name !== null ? { from_name: r.from_name } : {}),
    ...(r.headers !== null ? { headers: r.headers } : {}),
  };
}

/** The message's content as its MessageAccepted event had it, from its row. */
export function contentOfRow(r: DispatchRow): MessageContent {
  return {
    channel: r.channel,
    to: r.to_address,
    message: r.message,
    transactional: r.transactional,
    ...emailFieldsOf(r),
    ...(r.sender !== null ? { sender: r.sender } : {}),
    ...(r.category !== null ? { category: r.category } : {}),
    ...(r.webhook_url !== null ? { webhook_url: r.webhook_url } : {}),
  };
}

/**
 * The events whose sealed fields evolveRow reads: the content and recipient, a failure's and a
 * retry's reason. The others reach it sealed (a delivery report's provider_data, a click's url: no
 * row shows them). A row that comes to show another sealed field needs its event here.
 */
const SHOWS_SEALED: ReadonlySet<string> = new Set(['MessageAccepted', 'MessageFailed', 'MessageDispatchDeferred']);

export const messagesProjection: Projection = {
  name: 'messages',
  // 3: the dispatcher's and the scheduler's queues are read in their own order (their indexes)
  // 4: campaign_id, and the index that counts a campaign's messages by status
  // 5: reason is the category and reason_text the provider's words, blanked by an erasure
  // 6: content and state in two tables, joined by the view `messages`
  version: 6,
  tables: ['message_contents', 'message_states'],
  views: { messages: messagesView },
  types: [...MESSAGE_EVENT_TYPES, ...ERASURE_EVENTS],
  flushOn: ERASURE_EVENTS,
  schema: (t) => `
    CREATE TABLE ${t('message_contents')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      channel text NOT NULL,
      to_address text NOT NULL,
      message text NOT NULL,
      htmlmessage text,
      subject text,
      reply_to text,
      from_name text,
      headers jsonb,
      sender text,
      transactional boolean NOT NULL,
      category text,
      webhook_url text,
      resend_of text,
      bulk_id text,
      created_at timestamptz NOT NULL,
      personal_key text
    );
    CREATE INDEX ${t('message_contents')}_history ON ${t('message_contents')} (account_id, id DESC);
    CREATE INDEX ${t('message_contents')}_to ON ${t('message_contents')} (account_id, to_address, id DESC);
    CREATE INDEX ${t('message_contents')}_personal_key ON ${t('message_contents')} (personal_key) WHERE personal_key IS NOT NULL;
    CREATE TABLE ${t('message_states')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      status text NOT NULL,
      marketing boolean NOT NULL,
      marketing_to text,
      campaign_id text,
      scheduled_at timestamptz,
      not_before timestamptz,
      claimed_until timestamptz,
      attempts int NOT NULL DEFAULT 0,
      provider text,
      provider_message_id text,
      reason text,
      reason_text text,
      revision bigint NOT NULL,
      updated_at timestamptz NOT NULL,
      queued_at timestamptz,
      sent_at timestamptz,
      delivered_at timestamptz,
      failed_at timestamptz,
      cancelled_at timestamptz
    );
    CREATE INDEX ${t('message_states')}_status ON ${t('message_states')} (account_id, status, id DESC);
    CREATE INDEX ${t('message_states')}_queue ON ${t('message_states')} (not_before NULLS FIRST, id) WHERE status = 'queued';
    CREATE INDEX ${t('message_states')}_schedule ON ${t('message_states')} (scheduled_at) WHERE status = 'scheduled';
    CREATE INDEX ${t('message_states')}_provider_id ON ${t('message_states')} (provider_message_id) WHERE provider_message_id IS NOT NULL;
    CREATE INDEX ${t('message_states')}_marketing ON ${t('message_states')} (account_id, marketing_to, sent_at) WHERE marketing AND sent_at IS NOT NULL;
    CREATE INDEX ${t('message_states')}_campaign ON ${t('message_states')} (campaign_id, status) WHERE campaign_id IS NOT NULL;`,
  // opened here, only where a row shows a sealed field (SHOWS_SEALED): the delivery report every
  // message gets is not decrypted
  personalData: 'opened-by-apply',
  async apply(tx, sealed, t) {
    const events = await openEvents(tx, sealed, (e) => SHOWS_SEALED.has(e.type));
    await applyInOrder(events, isErasure, {
      apply: async (run) => {
        // the content of the messages the run accepts, written once; the states of every message it touches
        const accepted: Row[] = [];
        const cols = MESSAGE_CONTENT_COLUMNS.join(', ');
        await applyDocuments(
          tx, t('message_states'), MESSAGE_STATE_COLUMNS, run, (e) => (e.data as { id: string }).id,
          (row, e) => {
            const next = evolveRow(row, e);
            if (!next || e.type !== 'MessageAccepted') return next;
            accepted.push(next);
            return pick(next, MESSAGE_STATE_COLUMNS);
          },
          {
            fixed: FIXED_STATE_COLUMNS,
            // the contents go in the states' statement
            alsoWrite: () => [
              accepted.length
                ? {
                    text: `INSERT INTO ${t('message_contents')} (${cols}) SELECT ${cols} FROM jsonb_populate_recordset(NULL::${t('message_contents')}, $1::jsonb) ON CONFLICT (id) DO NOTHING`,
                    values: [JSON.stringify(accepted.map((r) => pick(r, MESSAGE_CONTENT_COLUMNS)))],
                  }
                : undefined,
            ],
            // a message's MessageAccepted makes its row from its own data (evolveRow): a send's or a bulk's batch reads no row
            makesAnew: (e) => e.type === 'MessageAccepted',
          },
        );
      },
      // the recipient and content sealed under the destroyed keys are blanked where the read model keeps them
      applySpecial: async (e) => {
        const params = [(e.data as { account_id: string }).account_id, erasedKeys(e), ERASED];
        await tx.query(
          `UPDATE ${t('message_states')} s SET reason_text = NULL, marketing_to = CASE WHEN s.marketing_to IS NULL THEN NULL ELSE $3 END
           FROM ${t('message_contents')} c
           WHERE c.account_id = $1 AND c.personal_key = ANY($2::text[]) AND s.id = c.id AND s.account_id = c.account_id`,
          params,
        );
        await tx.query(
          `UPDATE ${t('message_contents')} SET to_address = $3, message = $3,
             htmlmessage = CASE WHEN htmlmessage IS NULL THEN NULL ELSE $3 END, subject = CASE WHEN subject IS NULL THEN NULL ELSE $3 END,
             reply_to = CASE WHEN reply_to IS NULL THEN NULL ELSE $3 END, from_name = CASE WHEN from_name IS NULL THEN NULL ELSE $3 END,
             headers = CASE WHEN headers IS NULL THEN NULL ELSE '{}'::jsonb END
           WHERE account_id = $1 AND personal_key = ANY($2::text[])`,
          params,
        );
      },
    });
  },
};

function evolveRow(row: Row | undefined, recorded: RecordedEvent): Row | undefined {
  const e = recorded as unknown as MessageEvent;
  const revision = recorded.revision.toString();
  if (e.type === 'MessageAccepted') {
    const d = e.data;
    return {
      id: d.id,
      account_id: d.account_id,
      channel: d.channel,
      to_address: d.to,
      status: d.status,
      message: d.message,
      htmlmessage: d.htmlmessage ?? null,
      subject: d.subject ?? null,
      reply_to: d.reply_to ?? null,
      from_name: d.from_name ?? null,
      headers: d.headers ?? null,
      sender: d.sender ?? null,
      transactional: d.transactional,
      category: d.category ?? null,
      marketing: isMarketing(d),
      marketing_to: isMarketing(d) ? d.to : null,
      webhook_url: d.webhook_url ?? null,
      scheduled_at: d.scheduled_at ?? null,
      not_before: d.scheduled_at ?? null,
      claimed_until: null,
      attempts: 0,
      provider: null,
      provider_message_id: null,
      reason: null,
      reason_text: null,
      resend_of: d.resend_of ?? null,
      bulk_id: d.bulk_id ?? null,
      campaign_id: d.campaign_id ?? null,
      revision,
      created_at: d.created_at,
      updated_at: d.created_at,
      queued_at: d.status === 'queued' ? d.created_at : null,
      sent_at: null,
      delivered_at: null,
      failed_at: null,
      cancelled_at: null,
      personal_key: (d as { personal_data?: OpenedPersonalData }).personal_data?.key ?? null,
    };
  }
  if (!row) return row;
  // a click or an open changes no column but the revision the dispatcher's claims are appended at
  if (e.type === 'MessageLinkClicked' || e.type === 'MessageOpened') return { ...row, revision };
  const next: Row = { ...row, revision, updated_at: e.data.at };
  switch (e.type) {
    case 'MessageQueued':
      return { ...next, status: 'queued', not_before: null, queued_at: e.data.at };
    case 'MessageCancelled':
      return { ...next, status: 'cancelled', cancelled_at: e.data.at, not_before: null };
    case 'MessageDispatching':
      return { ...next, claimed_until: e.data.lease_until, attempts: e.data.attempt };
    case 'MessageHeld':
      // a hold is not an attempt (as in the decider): the claim that led to it is given back
      return { ...next, claimed_until: null, not_before: e.data.until, reason: e.data.reason, reason_text: null, attempts: Math.max(0, Number(row.attempts) - 1) };
    case 'MessageDispatchDeferred':
      return { ...next, claimed_until: null, not_before: e.data.retry_at, reason: 'retrying', reason_text: readableText(e.data.error, e.data) };
    case 'MessageSent':
      return { ...next, status: 'sent', claimed_until: null, not_before: null, reason: null, reason_text: null, provider: e.data.provider, provider_message_id: e.data.provider_message_id, sent_at: e.data.at };
    case 'MessageDelivered':
      return { ...next, status: 'delivered', delivered_at: e.data.at };
    case 'MessageFailed':
      return {
        ...next, status: 'failed', claimed_until: null, not_before: null, reason: failureCode(e.data.reason), reason_text: readableText(failureReasonOf(e.data), e.data),
        failed_at: e.data.at, provider: e.data.provider ?? row.provider,
      };
  }
  return next;
}

/** The provider's words, unless they are only the category or can no longer be read (erased, or read sealed). */
function readableText(text: string | undefined, data: object): string | null {
  if (text === undefined || text === failureCode(text) || (data as { personal_data?: OpenedPersonalData }).personal_data?.erased) return null;
  return text;
}

/** The reason a message shows: the provider's words while they can be read, else the category. */
export const reasonOf = (r: Pick<MessageRow, 'reason' | 'reason_text'>) => r.reason_text ?? r.reason;

const TIMESTAMP_COLUMNS = ['scheduled_at', 'not_before', 'claimed_until', 'created_at', 'updated_at', 'queued_at', 'sent_at', 'delivered_at', 'failed_at', 'cancelled_at'] as const;

/**
 * The row this read model will hold for a message once it has applied these events of the message's
 * stream (undefined when the stream has no MessageAccepted). For a by-id read of a message accepted
 * so recently that the read model has not applied it yet: a bulk answers before it does.
 */
export function messageRowOf(events: readonly RecordedEvent[]): MessageRow | undefined {
  let row: Row | undefined;
  for (const e of events) row = evolveRow(row, e);
  if (!row) return undefined;
  // the view's columns (the state table keeps one more, marketing_to)
  const viewRow = pick(row, MESSAGE_COLUMNS);
  // the events carry ISO strings where node-postgres gives Dates
  for (const c of TIMESTAMP_COLUMNS) if (typeof viewRow[c] === 'string') viewRow[c] = new Date(viewRow[c] as string);
  return viewRow as unknown as MessageRow;
}

export const findMessage = (db: Db, accountId: string, id: string) => findInAccount<MessageRow>(db, 'messages', accountId, id);

/** The history filters of GET /v1/messages/history (`to` as stored: normalised for its channel). */
export interface MessageFilter {
  status?: MessageStatus;
  channel?: Channel;
  to?: string;
  from?: string | Date;
  until?: string | Date;
}

export function listMessages(db: Db, accountId: string, filter: MessageFilter, range: IdRange): Promise<MessageRow[]> {
  const f = new Filters(accountId)
    .compare('status', '=', filter.status)
    .compare('channel', '=', filter.channel)
    .compare('to_address', '=', filter.to)
    .compare('created_at', '>=', filter.from)
    .compare('created_at', '<', filter.until);
  return listById<MessageRow>(db, 'messages', f, range);
}

/**
 * `SELECT <state columns>, <content columns> FROM messages <rest>` for messages picked by their state
 * alone (`rest` names no content column), each state joined to its content through the content's
 * primary key. The view's join is left to the planner's statistics, and on tables that grew since
 * they were taken (a new install, a burst of bulks) it was planned as a hash join over a scan of every
 * content row, for the dispatcher's queue and for each batch of delivery reports. `content` never
 * names id or account_id (those are the state's). On a live generation of version 5 or older (one
 * table, no message_states) until the rebuild swaps in: the same through the view.
 */
async function selectByState<R extends pg.QueryResultRow>(db: Db, state: string, content: readonly string[], rest: string, params: unknown[]): Promise<R[]> {
  const contentColumns = content.join(', ');
  const columns = `${state}, ${contentColumns}`;
  // LIMIT 1 keeps the subquery a subquery: one look-up of the content's key per state row
  const byState = `message_states s CROSS JOIN LATERAL (SELECT ${contentColumns} FROM message_contents c WHERE c.id = s.id AND c.account_id = s.account_id LIMIT 1) c`;
  try {
    return (await db.query<R>(prepared(`SELECT ${columns} FROM ${byState} ${rest}`, params))).rows;
  } catch (err) {
    if (!isUndefinedTable(err)) throw err;
    return (await db.query<R>(`SELECT ${columns} FROM messages ${rest}`, params)).rows;
  }
}

/** What a delivery report needs of the message it names: whose it is, to whom, and where its stream stands. */
export type ReportTargetRow = Pick<MessageRow, 'id' | 'account_id' | 'to_address' | 'channel' | 'provider_message_id' | 'status' | 'revision'>;

/** The messages named by our id or by the provider's. */
export async function reportTargets(db: Db, ids: readonly string[], providerMessageIds: readonly string[]): Promise<ReportTargetRow[]> {
  // one statement per key: `id = ANY($1) OR provider_message_id = ANY($2)` was planned as a bitmap
  // scan that checks every row it finds against the whole array again, ten times the cost of an
  // index scan for a batch of 2,000 reports (a row both find comes twice: callers key them by id)
  const select = (where: string, keys: readonly string[]) =>
    keys.length
      ? selectByState<ReportTargetRow>(db, 'id, account_id, provider_message_id, status, revision::text', ['to_address', 'channel'], `WHERE ${where} = ANY($1::text[])`, [keys])
      : Promise.resolve([]);
  return [...(await select('id', ids)), ...(await select('provider_message_id', providerMessageIds))];
}

/** The columns a dispatcher's claim needs: the message's content and its revision. */
export type DispatchRow = Pick<
  MessageRow,
  | 'id' | 'account_id' | 'channel' | 'to_address' | 'message' | 'htmlmessage' | 'subject' | 'reply_to' | 'from_name' | 'headers'
  | 'sender' | 'transactional' | 'category' | 'marketing' | 'webhook_url' | 'not_before' | 'claimed_until' | 'attempts' | 'reason' | 'revision'
  | 'personal_key'
>;

/** The content columns a claim reads (DispatchRow's own). */
const DISPATCH_CONTENT_COLUMNS = [
  'channel', 'to_address', 'message', 'htmlmessage', 'subject', 'reply_to', 'from_name', 'headers', 'sender', 'transactional', 'category', 'webhook_url', 'personal_key',
] as const satisfies readonly (typeof MESSAGE_CONTENT_COLUMNS)[number][];

/** Queued messages due now and not under a live claim, oldest due first, leaving out `exceptIds` (a dispatcher's own in-flight ones). */
export async function dueForDispatch(db: Db, limit: number, exceptIds: readonly string[]): Promise<DispatchRow[]> {
  return selectByState<DispatchRow>(
    db,
    'id, account_id, marketing, not_before, claimed_until, attempts, reason, revision::text',
    DISPATCH_CONTENT_COLUMNS,
    `WHERE status = 'queued' AND (not_before IS NULL OR not_before <= now())
       AND (claimed_until IS NULL OR claimed_until < now()) AND NOT (id = ANY($2::text[]))
     ORDER BY not_before NULLS FIRST, id LIMIT $1`,
    [limit, exceptIds],
  );
}

/** Scheduled messages whose time has come, earliest first. */
export async function dueScheduled(db: Db, limit: number): Promise<(Pick<MessageRow, 'id' | 'account_id' | 'revision'> & { scheduled_at: Date })[]> {
  const { rows } = await db.query<Pick<MessageRow, 'id' | 'account_id' | 'revision'> & { scheduled_at: Date }>(
    `SELECT id, account_id, revision::text, scheduled_at FROM messages
     WHERE status = 'scheduled' AND scheduled_at <= now() ORDER BY scheduled_at LIMIT $1`,
    [limit],
  );
  return rows;
}

/** Messages the sandbox took before `sentBefore` and has not reported on, by id after `afterId`. */
export async function sandboxSentBefore(db: Db, sentBefore: Date, afterId: string, limit: number): Promise<Pick<MessageRow, 'id' | 'channel' | 'to_address'>[]> {
  const { rows } = await db.query<Pick<MessageRow, 'id' | 'channel' | 'to_address'>>(
    `SELECT id, channel, to_address FROM messages WHERE status = 'sent' AND provider = 'sandbox' AND sent_at < $1 AND id > $2 ORDER BY id LIMIT $3`,
    [sentBefore, afterId, limit],
  );
  return rows;
}

/**
 * Per recipient, how many marketing messages were sent since `since` and when the oldest of them was:
 * from the state's copy of a marketing message's recipient, whose index names exactly the marketing
 * sent to them, by a function planned once per session (MARKETING_SENT_FUNCTION).
 */
export async function marketingSentSince(db: Db, recipients: readonly Recipient[], since: Date): Promise<{ account_id: string; to_address: string; n: number; oldest: Date }[]> {
  const params = [recipients.map((r) => r.account_id), recipients.map((r) => r.address), since, eachOnce(recipients.map((r) => r.account_id))];
  try {
    return (await db.query<{ account_id: string; to_address: string; n: number; oldest: Date }>(prepared(
      'SELECT o_account_id AS account_id, o_to_address AS to_address, o_n AS n, o_oldest AS oldest FROM marketing_sent_since($1::text[], $2::text[], $3::timestamptz, $4::text[])',
      params,
    ))).rows;
  } catch (err) {
    // a live generation of version 5 or older (one table, no message_states) until the rebuild that
    // this version starts swaps in: the same count through the view
    if (!isUndefinedTable(err)) throw err;
    return (await db.query<{ account_id: string; to_address: string; n: number; oldest: Date }>(
      `SELECT m.account_id, m.to_address, count(*)::int AS n, min(m.sent_at) AS oldest FROM messages m
       JOIN (SELECT DISTINCT a, addr FROM unnest($1::text[], $2::text[]) AS u(a, addr)) u ON m.account_id = u.a AND m.to_address = u.addr
       WHERE m.account_id = ANY($4::text[]) AND m.to_address = ANY($2::text[]) AND m.marketing AND m.sent_at > $3 GROUP BY m.account_id, m.to_address`,
      params,
    )).rows;
  }
}

/**
 * marketingSentSince's count, planned once per session (plannedOnceFunction): a probe of the
 * marketing recipients' index per recipient.
 */
const MARKETING_SENT_FUNCTION = plannedOnceFunction(
  'marketing_sent_since(p_accounts text[], p_addresses text[], p_since timestamptz, p_each_account text[])',
  'o_account_id text, o_to_address text, o_n int, o_oldest timestamptz',
  `SELECT m.account_id, m.marketing_to, count(*)::int, min(m.sent_at) FROM message_states m
     JOIN (SELECT DISTINCT a, addr FROM unnest(p_accounts, p_addresses) AS u(a, addr)) u ON m.account_id = u.a AND m.marketing_to = u.addr
    WHERE m.account_id = ANY(p_each_account) AND m.marketing_to = ANY(p_addresses) AND m.marketing AND m.sent_at > p_since
    GROUP BY m.account_id, m.marketing_to`,
);

export const MESSAGE_LOOKUP_MIGRATIONS: Migration[] = [
  { id: 63, name: 'messages: marketing sent to recipients counted by a function planned once per session', sql: MARKETING_SENT_FUNCTION },
];

/**
 * Per account and sending domain, how many marketing emails went out since `since` (warm-up's daily
 * count): the domain of the message's sender address, lower case. Keyed `<account id> <domain>`.
 */
export async function marketingEmailSentSince(db: Db, pairs: readonly { account_id: string; domain: string }[], since: Date): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (pairs.length === 0) return counts;
  const { rows } = await db.query<{ account_id: string; domain: string; n: number }>(
    `SELECT m.account_id, u.dom AS domain, count(*)::int AS n FROM messages m
     JOIN (SELECT DISTINCT a, dom FROM unnest($1::text[], $2::text[]) AS u(a, dom)) u ON m.account_id = u.a
     WHERE m.marketing AND m.channel = 'email' AND m.sent_at >= $3 AND lower(split_part(m.sender, '@', 2)) = u.dom
     GROUP BY m.account_id, u.dom`,
    [pairs.map((p) => p.account_id), pairs.map((p) => p.domain), since],
  );
  for (const r of rows) counts.set(`${r.account_id} ${r.domain}`, r.n);
  return counts;
}

/** How many of a campaign's messages are in each status (every status named, zero or more). */
export async function campaignMessageCounts(db: Db, accountId: string, campaignId: string): Promise<Record<MessageStatus, number>> {
  const { rows } = await db.query<{ status: MessageStatus; n: number }>(
    'SELECT status, count(*)::int AS n FROM messages WHERE campaign_id = $1 AND account_id = $2 GROUP BY status',
    [campaignId, accountId],
  );
  const counts: Record<MessageStatus, number> = { scheduled: 0, queued: 0, sent: 0, delivered: 0, failed: 0, cancelled: 0 };
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}
