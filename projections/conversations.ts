// Read model of the inbox and each account's inbound settings: one row per conversation (contact × channel) with its state and latest
// activity, and the thread's entries — inbound messages with their text, and the messages sent in it
// (their content and status are the messages read model's, joined when read). Inbound text is the
// contact's personal data: an erasure of its key blanks it here.
import { CONVERSATION_EVENT_TYPES, type ConversationEvent, type EmailAuthentication } from '../commands/conversation.ts';
import type { InboundSettings, InboundSettingsEvent } from '../commands/inbound-settings.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';
import { ERASED, type OpenedPersonalData } from '../src/personal-data/codec.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { storableText } from '../src/storable-text.ts';
import { ERASURE_EVENTS, erasedKeys, isErasure } from './erasures.ts';
import { type Db, Filters } from './queries.ts';

export interface ConversationRow {
  id: string;
  account_id: string;
  contact_id: string;
  channel: string;
  status: 'open' | 'closed';
  assignee: string | null;
  read: boolean;
  unread_count: number;
  message_count: number;
  last_message_at: Date;
  last_inbound_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** An entry of a thread: an inbound message, or a message sent in it (content from the messages read model). */
export interface ThreadEntryRow {
  id: string;
  conversation_id: string;
  direction: 'inbound' | 'outbound';
  from_address: string | null;
  to_address: string | null;
  body: string | null;
  subject: string | null;
  html: string | null;
  email_message_id: string | null;
  in_reply_to: string | null;
  provider: string | null;
  /** inbound email: SPF, DKIM and DMARC as checked on arrival */
  authentication: EmailAuthentication | null;
  keyword: string | null;
  automatic: string | null;
  /** outbound: the message's status */
  status: string | null;
  created_at: Date;
}

export const conversationsProjection: Projection = {
  name: 'conversations',
  version: 2,
  tables: ['conversations', 'conversation_entries', 'inbound_settings'],
  types: [...CONVERSATION_EVENT_TYPES, 'InboundSettingsChanged', ...ERASURE_EVENTS],
  flushOn: ERASURE_EVENTS,
  schema: (t) => `
    CREATE TABLE ${t('conversations')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      contact_id text NOT NULL,
      channel text NOT NULL,
      status text NOT NULL DEFAULT 'open',
      assignee text,
      read boolean NOT NULL DEFAULT true,
      unread_count int NOT NULL DEFAULT 0,
      message_count int NOT NULL DEFAULT 0,
      last_message_at timestamptz NOT NULL,
      last_inbound_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('conversations')}_activity ON ${t('conversations')} (account_id, last_message_at DESC, id DESC);
    CREATE TABLE ${t('conversation_entries')} (
      id text PRIMARY KEY,
      conversation_id text NOT NULL,
      account_id text NOT NULL,
      direction text NOT NULL,
      from_address text,
      to_address text,
      body text,
      subject text,
      html text,
      email_message_id text,
      in_reply_to text,
      provider text,
      keyword text,
      authentication jsonb,
      automatic text,
      personal_key text,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('conversation_entries')}_thread ON ${t('conversation_entries')} (conversation_id, created_at, id);
    CREATE INDEX ${t('conversation_entries')}_personal_key ON ${t('conversation_entries')} (personal_key) WHERE personal_key IS NOT NULL;
    CREATE TABLE ${t('inbound_settings')} (account_id text PRIMARY KEY, webhook_url text, help_text text, updated_at timestamptz NOT NULL);`,
  async apply(tx, events, t) {
    for (const recorded of events) {
      if (isErasure(recorded)) await applyErasure(tx, recorded, t);
      else if (recorded.type === 'InboundSettingsChanged') {
        const d = (recorded as unknown as InboundSettingsEvent).data;
        await tx.query(
          `INSERT INTO ${t('inbound_settings')} (account_id, webhook_url, help_text, updated_at) VALUES ($1,$2,$3,$4)
           ON CONFLICT (account_id) DO UPDATE SET webhook_url = excluded.webhook_url, help_text = excluded.help_text, updated_at = excluded.updated_at`,
          [d.account_id, d.webhook_url, d.help_text, d.changed_at],
        );
      } else await applyEvent(tx, recorded as unknown as ConversationEvent, t);
    }
  },
};

async function applyErasure(tx: Db, e: RecordedEvent, t: (b: string) => string): Promise<void> {
  const { account_id } = e.data as { account_id: string };
  await tx.query(
    `UPDATE ${t('conversation_entries')} SET from_address = $3, body = $3, subject = CASE WHEN subject IS NULL THEN NULL ELSE $3 END, html = NULL
     WHERE account_id = $1 AND personal_key = ANY($2::text[])`,
    [account_id, erasedKeys(e), ERASED],
  );
}

async function applyEvent(tx: Db, e: ConversationEvent, t: (b: string) => string): Promise<void> {
  const c = t('conversations');
  switch (e.type) {
    case 'ConversationStarted': {
      const d = e.data;
      await tx.query(
        `INSERT INTO ${c} (id, account_id, contact_id, channel, last_message_at, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$5,$5) ON CONFLICT (id) DO NOTHING`,
        [d.id, d.account_id, d.contact_id, d.channel, d.started_at],
      );
      return;
    }
    case 'InboundMessageReceived': {
      const d = e.data;
      const personal = (d as { personal_data?: OpenedPersonalData }).personal_data;
      // written before inbound text was cleaned where it comes in, an event may still hold a NUL:
      // cleaned here too, so it can neither stop this read model nor a rebuild of it
      const text = (v: string | undefined) => (v === undefined ? null : storableText(v));
      const inserted = await tx.query(
        `INSERT INTO ${t('conversation_entries')} (id, conversation_id, account_id, direction, from_address, to_address, body, subject, html, email_message_id,
           in_reply_to, provider, keyword, personal_key, created_at, authentication)
         VALUES ($1,$2,$3,'inbound',$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15) ON CONFLICT (id) DO NOTHING`,
        [
          d.message_id, d.id, d.account_id, text(d.from), text(d.to), text(d.body), text(d.subject), personal?.erased ? null : text(d.html), text(d.email_message_id),
          text(d.in_reply_to), text(d.provider), d.keyword ?? null, personal?.key ?? null, d.received_at, d.authentication ? JSON.stringify(d.authentication) : null,
        ],
      );
      if (inserted.rowCount === 0) return;
      await tx.query(
        `UPDATE ${c} SET read = false, unread_count = unread_count + 1, message_count = message_count + 1,
           last_message_at = greatest(last_message_at, $2), last_inbound_at = $2, updated_at = $2 WHERE id = $1`,
        [d.id, d.received_at],
      );
      return;
    }
    case 'ConversationReplySent': {
      const d = e.data;
      const inserted = await tx.query(
        `INSERT INTO ${t('conversation_entries')} (id, conversation_id, account_id, direction, automatic, created_at) VALUES ($1,$2,$3,'outbound',$4,$5) ON CONFLICT (id) DO NOTHING`,
        [d.message_id, d.id, d.account_id, d.automatic ?? null, d.at],
      );
      if (inserted.rowCount === 0) return;
      await tx.query(`UPDATE ${c} SET message_count = message_count + 1, last_message_at = greatest(last_message_at, $2), updated_at = $2 WHERE id = $1`, [d.id, d.at]);
      return;
    }
    case 'ConversationStatusChanged':
      await tx.query(`UPDATE ${c} SET status = $2, updated_at = $3 WHERE id = $1`, [e.data.id, e.data.status, e.data.at]);
      return;
    case 'ConversationAssigned':
      await tx.query(`UPDATE ${c} SET assignee = $2, updated_at = $3 WHERE id = $1`, [e.data.id, e.data.assignee, e.data.at]);
      return;
    case 'ConversationReadChanged':
      // read clears the unread count; marking unread again counts the thread as one unread
      await tx.query(`UPDATE ${c} SET read = $2, unread_count = CASE WHEN $2 THEN 0 ELSE greatest(unread_count, 1) END, updated_at = $3 WHERE id = $1`, [
        e.data.id, e.data.read, e.data.at,
      ]);
  }
}

export interface ConversationFilters {
  status?: string;
  channel?: string;
  /** an assignee, or null for the unassigned */
  assignee?: string | null;
  unread?: boolean;
}

/** Where a page of conversations starts: after this one, in newest-activity-first order. */
export interface ActivityPosition {
  at: string;
  id: string;
}

/** The account's conversations, newest activity first. */
export async function listConversations(db: Db, accountId: string, f: ConversationFilters, limit: number, after?: ActivityPosition): Promise<ConversationRow[]> {
  const filters = new Filters(accountId).compare('status', '=', f.status).compare('channel', '=', f.channel);
  if (f.assignee === null) filters.where.push('assignee IS NULL');
  else if (f.assignee !== undefined) filters.add((n) => `assignee = $${n}`, f.assignee);
  if (f.unread !== undefined) filters.add((n) => `read = $${n}`, !f.unread);
  if (after) filters.add((n) => `(last_message_at, id) < ($${n}::timestamptz, $${n + 1})`, after.at, after.id);
  const params = [...filters.params, limit];
  const { rows } = await db.query<ConversationRow>(
    `SELECT * FROM conversations WHERE ${filters.where.join(' AND ')} ORDER BY last_message_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  return rows;
}

export async function findConversation(db: Db, accountId: string, id: string): Promise<ConversationRow | undefined> {
  const { rows } = await db.query<ConversationRow>(`SELECT * FROM conversations WHERE id = $1 AND account_id = $2`, [id, accountId]);
  return rows[0];
}

/** Where a page of a thread starts: after this entry, oldest first. */
export interface ThreadPosition {
  at: string;
  id: string;
}

/** A thread's entries in order, oldest first; a message sent in it reads its content and status from the messages read model. */
export async function threadEntries(db: Db, accountId: string, conversationId: string, limit: number, after?: ThreadPosition): Promise<ThreadEntryRow[]> {
  const params: unknown[] = [conversationId, accountId, limit];
  let cursor = '';
  if (after) {
    params.push(after.at, after.id);
    cursor = `AND (e.created_at, e.id) > ($4::timestamptz, $5)`;
  }
  const { rows } = await db.query<ThreadEntryRow>(
    `SELECT e.id, e.conversation_id, e.direction, e.created_at, e.email_message_id, e.in_reply_to, e.provider, e.keyword, e.automatic, e.authentication,
       CASE WHEN e.direction = 'inbound' THEN e.from_address ELSE m.sender END AS from_address,
       CASE WHEN e.direction = 'inbound' THEN e.to_address ELSE m.to_address END AS to_address,
       CASE WHEN e.direction = 'inbound' THEN e.body ELSE m.message END AS body,
       CASE WHEN e.direction = 'inbound' THEN e.subject ELSE m.subject END AS subject,
       CASE WHEN e.direction = 'inbound' THEN e.html ELSE m.htmlmessage END AS html,
       m.status
     FROM conversation_entries e LEFT JOIN messages m ON e.direction = 'outbound' AND m.id = e.id AND m.account_id = e.account_id
     WHERE e.conversation_id = $1 AND e.account_id = $2 ${cursor}
     ORDER BY e.created_at, e.id LIMIT $3`,
    params,
  );
  return rows;
}

/** The account's inbound settings (none set: both null). */
export async function inboundSettingsOf(db: Db, accountId: string): Promise<InboundSettings> {
  const { rows } = await db.query<InboundSettings>(`SELECT webhook_url, help_text FROM inbound_settings WHERE account_id = $1`, [accountId]);
  return rows[0] ?? { webhook_url: null, help_text: null };
}
