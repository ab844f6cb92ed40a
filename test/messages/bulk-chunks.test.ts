// A bulk is answered once it is stored in its intake, and its messages are appended behind the
// answer (README "The write path"), in chunks (APPEND_CHUNK), two at a time: each chunk is its own
// transaction, so a chunk that fails writes none of its messages, and the chunks written beside or
// before it stay, whole; no chunk is started once one has failed. The process tries again until the
// database takes the rest: nothing accepted is lost, and nothing is written twice. Here the database
// refuses one message of the second chunk (of three where a bulk holds three) until the test lets it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BULK } from '../../src/http/routes/messages.ts';
import { APPEND_CHUNK } from '../../src/messages/append-accepted.ts';
import { readyAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { eventually } from '../support/waits.ts';

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
  it('stays accepted: the first chunk is written whole, nothing of the refused one, and every message once the database takes them', async () => {
    const marked = CHUNK + 10;
    const total = Math.min(3 * CHUNK, MAX_BULK);
    const messages = Array.from({ length: total }, (_, i) => ({
      to: `+1415555${String(i % 10_000).padStart(4, '0')}`,
      channel: 'sms',
      message: `chunk test ${i}`,
      ...(i === marked ? { category: 'refused-by-test' } : {}),
    }));
    // stored whole before the answer: the database's refusal comes later, and is not the caller's
    const res = await server.call('POST', '/v1/messages/bulk', { key, body: { messages } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ accepted: total, failed: 0 });
    const ids = (res.body.results as { id: string }[]).map((r) => r.id);

    /**
     * The places in the bulk of the messages stored: by their ids, which the answer gives in the
     * bulk's order (a sample's content, sealed, is read back opened and is the message at its place).
     */
    const placeOf = new Map(ids.map((id, i) => [`message-${id}`, i]));
    const storedPlaces = async () => {
      const { rows } = await server.engage.pool.query<{ stream_id: string }>(
        `SELECT stream_id FROM es_events WHERE type = 'MessageAccepted' AND data->>'account_id' = $1`,
        [accountId],
      );
      const places = rows.map((r) => placeOf.get(r.stream_id)!);
      for (const r of rows.filter((_, i) => i % 500 === 0)) {
        const [accepted] = await server.engage.store.readStream(r.stream_id, { maxCount: 1 });
        expect((accepted.data as { message: string }).message).toBe(`chunk test ${placeOf.get(r.stream_id)}`);
      }
      return places;
    };
    // the first chunk (appended beside the refused one) whole, nothing of the second; the third is
    // started only if the first was written before the second failed, and is then whole
    const places = await eventually('the first chunk written', async () => {
      const p = await storedPlaces();
      return p.length >= CHUNK ? p : undefined;
    });
    const chunks = new Map<number, number>();
    for (const p of places) chunks.set(Math.floor(p / CHUNK), (chunks.get(Math.floor(p / CHUNK)) ?? 0) + 1);
    expect(chunks.get(0)).toBe(CHUNK);
    expect(chunks.has(1)).toBe(false);
    expect([...chunks.keys()].every((k) => k === 0 || k === 2)).toBe(true);
    expect([...chunks.values()].every((n) => n === CHUNK)).toBe(true);
    // the bulk is still held, and each of its messages readable by id (which tries to append it too)
    expect((await server.engage.pool.query('SELECT 1 FROM bulk_intakes WHERE account_id = $1', [accountId])).rowCount).toBe(1);

    // the database takes them again: every message of the bulk is in the log, each once
    await server.engage.pool.query('DROP TRIGGER test_refuse_marked ON es_events');
    const one = await server.call('GET', `/v1/messages/${ids[marked]}`, { key });
    expect(one.body).toMatchObject({ id: ids[marked], status: 'queued', message: `chunk test ${marked}` });
    await server.caughtUp(['messages']);
    const all = await storedPlaces();
    expect(all).toHaveLength(total);
    expect(new Set(all).size).toBe(total);
    const { rows } = await server.engage.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM es_events WHERE type = 'MessageAccepted' AND stream_id = ANY($1::text[])`,
      [ids.map((id) => `message-${id}`)],
    );
    expect(Number(rows[0].n)).toBe(total);
    expect((await server.engage.pool.query('SELECT 1 FROM bulk_intakes WHERE account_id = $1', [accountId])).rowCount).toBe(0);
  }, 120_000);
});
