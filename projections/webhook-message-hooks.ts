// webhook_message_hooks (a table of the webhook outbox projection; every statement on it is here):
// what the outbox remembers of each message to build its status deliveries later — its channel,
// own webhook_url, provider id and recipient. Every message gets one, so that an endpoint created
// after a message was accepted still hears how it ended; the recipient of a message nobody listened
// to at accept time stays sealed, as its event carries it, and is opened only to build a delivery.
import type { MessageAcceptedData } from '../commands/message.ts';
import type { Statement } from '../src/db/together.ts';
import { ERASED, type OpenedPersonalData, openPersonalData, type SealedPersonalData, sealedKeyOf } from '../src/personal-data/codec.ts';
import { keysById } from '../src/personal-data/keys.ts';
import type { TableNamer } from '../src/read-models/projection.ts';
import type { Db } from './queries.ts';
import type { MessageHook } from './webhook-payloads.ts';

/** A hook as stored: its recipient in clear (`to_address`), or still sealed (`recipient_sealed`). */
export interface StoredHook extends Omit<MessageHook, 'to_address'> {
  to_address: string | null;
  /** the MessageAccepted event's sealed personal data (the recipient among it), when nobody opened it */
  recipient_sealed: SealedPersonalData | null;
}

export const messageHooksSchema = (t: TableNamer) => `
    CREATE TABLE ${t('webhook_message_hooks')} (
      message_id text PRIMARY KEY, account_id text NOT NULL, webhook_url text, channel text NOT NULL, to_address text,
      provider_message_id text, personal_key text, recipient_sealed jsonb
    );
    CREATE INDEX ${t('webhook_message_hooks')}_personal_key ON ${t('webhook_message_hooks')} (personal_key) WHERE personal_key IS NOT NULL;`;

/** Idempotent DDL bringing an older generation's table up to today's (personal_key came with erasure, recipient_sealed with hooks for every message). */
export const messageHooksUpgrade = (t: TableNamer) => `
    ALTER TABLE ${t('webhook_message_hooks')} ADD COLUMN IF NOT EXISTS personal_key text;
    CREATE INDEX IF NOT EXISTS ${t('webhook_message_hooks')}_personal_key ON ${t('webhook_message_hooks')} (personal_key) WHERE personal_key IS NOT NULL;
    ALTER TABLE ${t('webhook_message_hooks')} ADD COLUMN IF NOT EXISTS recipient_sealed jsonb;
    ALTER TABLE ${t('webhook_message_hooks')} ALTER COLUMN to_address DROP NOT NULL;`;

/** The hook a MessageAccepted leaves, as the event reads here: opened (the recipient in clear) or still sealed. */
export function hookOfAccepted(d: MessageAcceptedData): StoredHook {
  const personal = (d as { personal_data?: OpenedPersonalData | SealedPersonalData }).personal_data;
  const sealed = typeof d.to !== 'string' && sealedKeyOf(d) !== undefined ? (personal as SealedPersonalData) : null;
  return {
    message_id: d.id, account_id: d.account_id, webhook_url: d.webhook_url ?? null, channel: d.channel, provider_message_id: null,
    personal_key: personal?.key ?? null, to_address: sealed ? null : (d.to ?? ERASED), recipient_sealed: sealed,
  };
}

/** The select of the stored hooks of the messages in `messageIds` (SQL of a text[]), as StoredHook rows: as stored before the batch (`t`: the outbox's generation). */
export const hooksOfMessagesSql = (t: TableNamer, messageIds: string) => `SELECT * FROM ${t('webhook_message_hooks')} WHERE message_id = ANY(${messageIds})`;

/** The insert of a batch's new hooks (a statement for writeTogether), undefined for none. */
export function hooksInsert(hooks: readonly StoredHook[], t: TableNamer): Statement | undefined {
  if (!hooks.length) return undefined;
  return {
    text: `INSERT INTO ${t('webhook_message_hooks')} (message_id, account_id, webhook_url, channel, to_address, personal_key, recipient_sealed, provider_message_id)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::text[]) ON CONFLICT DO NOTHING`,
    values: [
      hooks.map((h) => h.message_id), hooks.map((h) => h.account_id), hooks.map((h) => h.webhook_url), hooks.map((h) => h.channel), hooks.map((h) => h.to_address),
      hooks.map((h) => h.personal_key), hooks.map((h) => (h.recipient_sealed ? JSON.stringify(h.recipient_sealed) : null)),
      // a hook made in this run may have been sent in it too (its UPDATE would find no row yet)
      hooks.map((h) => h.provider_message_id),
    ],
  };
}

/**
 * The update of these messages' stored hooks with their provider ids (a batch's MessageSent events;
 * a statement for writeTogether), undefined for none. The ids also as `= ANY`, a condition of the
 * primary key: joined only, a batch of hundreds was planned as a hash join over a scan of every hook.
 */
export function providerIdsUpdate(ids: ReadonlyMap<string, string>, t: TableNamer): Statement | undefined {
  if (!ids.size) return undefined;
  return {
    text: `UPDATE ${t('webhook_message_hooks')} h SET provider_message_id = u.provider_message_id
     FROM unnest($1::text[], $2::text[]) AS u(message_id, provider_message_id) WHERE h.message_id = ANY($1::text[]) AND h.message_id = u.message_id`,
    values: [[...ids.keys()], [...ids.values()]],
  };
}

/** Blanks the recipients the erased keys sealed (a sealed one is dropped: its key is gone anyway). */
export async function eraseHooks(tx: Db, accountId: string, keys: readonly string[], t: TableNamer): Promise<void> {
  await tx.query(`UPDATE ${t('webhook_message_hooks')} SET to_address = $3, recipient_sealed = NULL WHERE account_id = $1 AND personal_key = ANY($2::text[])`, [accountId, keys, ERASED]);
}

/**
 * The hooks with their recipients in clear: sealed ones opened with one read of their keys (a
 * recipient whose key is gone reads as erased).
 */
export async function openHooks(db: Db, hooks: readonly StoredHook[]): Promise<MessageHook[]> {
  const sealed = hooks.filter((h) => h.to_address === null && h.recipient_sealed);
  const keys = sealed.length ? await keysById(db, sealed.map((h) => h.recipient_sealed!.key)) : new Map<string, Buffer | null>();
  return hooks.map(({ recipient_sealed, ...h }) => {
    if (h.to_address !== null) return { ...h, to_address: h.to_address };
    if (!recipient_sealed) return { ...h, to_address: ERASED };
    const opened = openPersonalData({ personal_data: recipient_sealed }, keys.get(recipient_sealed.key) ?? null);
    return { ...h, to_address: typeof opened.to === 'string' ? opened.to : ERASED };
  });
}

/** The hooks of these messages with their recipients opened (the replay worker's read, through the view). */
export async function messageHooksFor(db: Db, messageIds: readonly string[]): Promise<Map<string, MessageHook>> {
  if (!messageIds.length) return new Map();
  const { rows } = await db.query<StoredHook>('SELECT * FROM webhook_message_hooks WHERE message_id = ANY($1::text[])', [messageIds]);
  return new Map((await openHooks(db, rows)).map((h) => [h.message_id, h]));
}
