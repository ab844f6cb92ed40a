// An erasure blanks what the messages read model keeps of the recipient and content sealed under the
// destroyed keys (README "The write path"): the content's table, and the state's copy of a marketing
// message's recipient (kept for the marketing cap's look-up by recipient).
import { describe, expect, it } from 'vitest';
import { messagesProjection } from '../../projections/messages.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import { ERASED } from '../../src/personal-data/codec.ts';
import { ensureProjection } from '../../src/read-models/generations.ts';
import { tableNamer } from '../../src/read-models/projection.ts';
import { migratedStoreForSuite } from '../support/event-store.ts';

const db = migratedStoreForSuite(2);
const ACCOUNT = 'acct_01JERASEDMARKETING000000000';
const at = new Date().toISOString();
let revision = 0n;
let commit = 1n;

const event = (type: string, data: Record<string, unknown>): RecordedEvent =>
  ({ id: `ev-${commit}`, type, data, metadata: {}, streamId: `message-${data.id ?? 'x'}`, revision: revision++, position: { commit: commit++, prepare: 0n }, createdAt: new Date() }) as unknown as RecordedEvent;

const accepted = (id: string, to: string, key: string, transactional: boolean) =>
  event('MessageAccepted', {
    id, account_id: ACCOUNT, channel: 'email', to, message: 'Hello', subject: 'Hi', transactional, status: 'queued', created_at: at,
    personal_data: { key },
  });

describe('the messages read model and an erasure', () => {
  it("blanks a marketing message's recipient in its state as well as its content; other keys' messages keep theirs", async () => {
    await ensureProjection(db.pool, messagesProjection);
    const t = tableNamer(1);
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await messagesProjection.apply(client, [
        accepted('msg_erased', 'gone@example.com', 'dk_gone', false),
        accepted('msg_kept', 'kept@example.com', 'dk_kept', false),
        event('MessageSent', { id: 'msg_erased', account_id: ACCOUNT, at, provider: 'sandbox', provider_message_id: 'p1' }),
        event('MessageSent', { id: 'msg_kept', account_id: ACCOUNT, at, provider: 'sandbox', provider_message_id: 'p2' }),
        event('ContactErased', { id: 'ct_x', account_id: ACCOUNT, key_ids: ['dk_gone'], address_hashes: [] }),
      ], t);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const { rows } = await db.pool.query(`SELECT id, marketing_to, status FROM message_states WHERE account_id = $1 ORDER BY id`, [ACCOUNT]);
    expect(rows).toEqual([
      { id: 'msg_erased', marketing_to: ERASED, status: 'sent' },
      { id: 'msg_kept', marketing_to: 'kept@example.com', status: 'sent' },
    ]);
    const view = await db.pool.query(`SELECT id, to_address, message, subject FROM messages WHERE account_id = $1 ORDER BY id`, [ACCOUNT]);
    expect(view.rows).toEqual([
      { id: 'msg_erased', to_address: ERASED, message: ERASED, subject: ERASED },
      { id: 'msg_kept', to_address: 'kept@example.com', message: 'Hello', subject: 'Hi' },
    ]);
  });
});
