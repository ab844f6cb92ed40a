// Read model of where a contact's reply belongs (README "Inbound messages and conversations"): for each phone
// number we sent to, per provider family and sending number, the account that sent the latest
// message. The number is kept only as its keyed hash, so the table holds no personal data and an
// erasure leaves nothing readable here.
import type { MessageAcceptedData } from '../commands/message.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';
import { addressHasher } from '../src/personal-data/address-hash.ts';
import { openEvents } from '../src/personal-data/store.ts';
import type { Projection } from '../src/read-models/projection.ts';
import type { Db } from './queries.ts';

/** Replies to sms, rcs and voice come back through the carrier; whatsapp ones through WhatsApp. */
export type ReplyFamily = 'carrier' | 'whatsapp';
export const replyFamilyOf = (channel: string): ReplyFamily | undefined =>
  channel === 'whatsapp' ? 'whatsapp' : channel === 'sms' || channel === 'rcs' || channel === 'voice' ? 'carrier' : undefined;

export const replyRoutesProjection: Projection = {
  name: 'reply_routes',
  version: 1,
  tables: ['reply_routes'],
  types: ['MessageAccepted'],
  // nothing is opened but phone messages from before MessageAccepted kept its address hash in clear
  personalData: 'opened-by-apply',
  schema: (t) => `
    CREATE TABLE ${t('reply_routes')} (
      family text NOT NULL,
      peer_hash text NOT NULL,
      sender text NOT NULL,
      account_id text NOT NULL,
      message_id text NOT NULL,
      PRIMARY KEY (family, peer_hash, sender)
    );`,
  async apply(tx, events, t) {
    const phone = events.filter((e) => replyFamilyOf((e.data as MessageAcceptedData).channel) !== undefined);
    if (phone.length === 0) return;
    // messages accepted since the address hash is kept in clear need no opening; older ones are
    // opened and their recipient hashed here
    const isOlder = (e: RecordedEvent) => (e.data as { address_hash?: string }).address_hash === undefined;
    const hash = phone.some(isOlder) ? await addressHasher(tx) : undefined;
    // the latest message per route wins (ids are ULIDs: later id, later message)
    const latest = new Map<string, { family: string; peer: string; sender: string; account: string; id: string }>();
    for (const e of await openEvents(tx, phone, isOlder)) {
      const d = e.data as MessageAcceptedData & { address_hash?: string; personal_data?: { erased?: boolean } };
      if (d.address_hash === undefined && d.personal_data?.erased) continue;
      const route = { family: replyFamilyOf(d.channel)!, peer: d.address_hash ?? hash!(d.to), sender: d.sender ?? '', account: d.account_id, id: d.id };
      const key = `${route.family}\u0000${route.peer}\u0000${route.sender}`;
      const before = latest.get(key);
      if (!before || before.id < route.id) latest.set(key, route);
    }
    const rows = [...latest.values()];
    await tx.query(
      `INSERT INTO ${t('reply_routes')} (family, peer_hash, sender, account_id, message_id)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
       ON CONFLICT (family, peer_hash, sender) DO UPDATE SET account_id = excluded.account_id, message_id = excluded.message_id
         WHERE ${t('reply_routes')}.message_id < excluded.message_id`,
      [rows.map((r) => r.family), rows.map((r) => r.peer), rows.map((r) => r.sender), rows.map((r) => r.account), rows.map((r) => r.id)],
    );
  },
};

/**
 * The account whose latest message to `peerHash` on this family went from one of `to` (the ways the
 * provider names the number written to) — given as the message's sender, or, for the family's
 * default sender, with no sender at all.
 */
export async function accountOfReply(db: Db, family: ReplyFamily, peerHash: string, to: readonly string[], defaultSender: string | undefined): Promise<string | undefined> {
  const senders = defaultSender !== undefined && to.includes(defaultSender) ? [...to, ''] : [...to];
  const { rows } = await db.query<{ account_id: string }>(
    `SELECT account_id FROM reply_routes WHERE family = $1 AND peer_hash = $2 AND sender = ANY($3::text[]) ORDER BY message_id DESC LIMIT 1`,
    [family, peerHash, senders],
  );
  return rows[0]?.account_id;
}
