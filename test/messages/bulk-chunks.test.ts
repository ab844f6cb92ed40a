// A large bulk is appended in chunks (APPEND_CHUNK), two at a time (README "The write path"): each
// chunk is its own transaction, so a chunk that fails writes none of its messages, and the chunks
// written beside or before it stay accepted, whole; no chunk is started once one has failed. Here the
// database refuses one message of the second chunk (of three where a bulk holds three).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BULK } from '../../src/http/routes/messages.ts';
import { APPEND_CHUNK } from '../../src/messages/service.ts';
import { readyAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';

const server = testServerForSuite({ WORKERS_ENABLED: 'false' });
let key: string;
let accountId: string;
const CHUNK = APPEND_CHUNK;

beforeAll(async () => {
  ({ key, accountId } = await readyAccount(server));
  await server.engage.pool.query(`
    CREATE FUNCTION test_refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.type = 'MessageAccepted' AND NEW.data->>'category' = 'refused-by-test' THEN
        RAISE EXCEPTION 'refused by the test';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER test_refuse_marked BEFORE INSERT ON es_events FOR EACH ROW EXECUTE FUNCTION test_refuse_marked();`);
});
afterAll(async () => {
  await server.engage.pool.query('DROP TRIGGER IF EXISTS test_refuse_marked ON es_events; DROP FUNCTION IF EXISTS test_refuse_marked()').catch(() => undefined);
});

describe('a bulk whose second chunk the database refuses', () => {
  it('fails, with the first chunk written whole, nothing of the refused one, and any other chunk whole or not at all', async () => {
    const marked = CHUNK + 10;
    const messages = Array.from({ length: Math.min(3 * CHUNK, MAX_BULK) }, (_, i) => ({
      to: `+1415555${String(i % 10_000).padStart(4, '0')}`,
      channel: 'sms',
      message: `chunk test ${i}`,
      ...(i === marked ? { category: 'refused-by-test' } : {}),
    }));
    // the database failing is the one case where a 5xx is the answer
    const res = await server.request('POST', '/v1/messages/bulk', { key, body: { messages } });
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ error: 'internal_error' });

    // which messages were stored, by their place in the bulk (the content is sealed: read them back opened)
    const { rows } = await server.engage.pool.query<{ stream_id: string }>(
      `SELECT stream_id FROM es_events WHERE type = 'MessageAccepted' AND data->>'account_id' = $1`,
      [accountId],
    );
    const places: number[] = [];
    for (const r of rows) {
      const [accepted] = await server.engage.store.readStream(r.stream_id, { maxCount: 1 });
      places.push(Number(/chunk test (\d+)/.exec((accepted.data as { message: string }).message)![1]));
    }
    const chunks = new Map<number, number>();
    for (const p of places) chunks.set(Math.floor(p / CHUNK), (chunks.get(Math.floor(p / CHUNK)) ?? 0) + 1);
    // the first chunk (appended beside the refused one) whole, nothing of the second; the third is
    // started only if the first was written before the second failed, and is then whole
    expect(chunks.get(0)).toBe(CHUNK);
    expect(chunks.has(1)).toBe(false);
    expect([...chunks.keys()].every((k) => k === 0 || k === 2)).toBe(true);
    expect([...chunks.values()].every((n) => n === CHUNK)).toBe(true);
  }, 120_000);
});
