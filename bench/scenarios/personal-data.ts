// Sealed personal data (issue 10): the same contact history read (readAll from START) and rebuilt into
// the contacts read model, first as plain events, then with every contact's personal fields sealed
// under its data key and opened on read by the event store that does so in the service.
import { START, type NewEvent, type RecordedEvent } from '../../src/eventstore/port.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { PersonalDataStore } from '../../src/personal-data/store.ts';
import { figure } from '../lib/report.ts';
import { type Scenario, scaled } from '../lib/scenario.ts';
import { now, progress } from '../lib/stats.ts';
import { timedPaging } from './catchup.ts';
import { contactsAtHead, timedRebuild } from './rebuild.ts';

const BATCH = 1000;

export const personalDataScenario: Scenario = {
  name: 'personal-data',
  description: 'readAll and a contacts rebuild over sealed personal data, against the same events unsealed',
  async run(ctx) {
    const { shape, db, store: plain } = await contactsAtHead(ctx, 'personal_data', scaled(ctx, 250_000, 5_000));
    const sealed = new PersonalDataStore(plain, db.pool);
    try {
      const readAllOf = (store: PostgresEventStore | PersonalDataStore) =>
        timedPaging(BATCH, START, (after) => store.readAll({ after, maxCount: BATCH }), (last: RecordedEvent) => last.position);

      await readAllOf(plain); // warm the cache
      const plainRead = await readAllOf(plain);
      const plainRebuild = await timedRebuild(db.pool, plain);
      progress(`plain: readAll ${Math.round(plainRead.rate)} events/s, rebuild ${Math.round(shape.events / plainRebuild.secs)} events/s`);

      const sealing = await sealInPlace(db.pool, plain, sealed);
      progress(`sealed ${sealing.events.toLocaleString('en-US')} events under ${sealing.keys.toLocaleString('en-US')} keys in ${sealing.secs.toFixed(1)} s`);
      await readAllOf(sealed);
      const sealedRead = await readAllOf(sealed);
      const sealedRebuild = await timedRebuild(db.pool, sealed);
      progress(`sealed: readAll ${Math.round(sealedRead.rate)} events/s, rebuild ${Math.round(shape.events / sealedRebuild.secs)} events/s`);
      const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM contacts WHERE email LIKE 'person%@example.com'`);
      if (rows[0].n !== shape.liveContacts) ctx.notes.push(`personal-data: the sealed rebuild opened ${rows[0].n} of ${shape.liveContacts} contacts' emails`);

      return [
        figure({
          scenario: 'personal-data',
          name: `readAll from START, batches of ${BATCH}, personal data sealed`,
          unit: 'events/s',
          better: 'higher',
          value: sealedRead.rate,
          target: null,
          baseline: { name: 'the same events unsealed (readAll, same batches)', value: plainRead.rate },
          details: { events: shape.events, sealed: sealedRead, plain: plainRead, sealing },
        }),
        figure({
          scenario: 'personal-data',
          name: 'rebuild contacts read model, personal data sealed',
          unit: 'events/s',
          better: 'higher',
          value: shape.events / sealedRebuild.secs,
          target: { op: '>=', value: 20_000 },
          baseline: { name: 'the same rebuild of the events unsealed', value: shape.events / plainRebuild.secs },
          details: { events: shape.events, sealed_seconds: sealedRebuild.secs, plain_seconds: plainRebuild.secs },
        }),
      ];
    } finally {
      await plain.close();
      await db.drop();
    }
  },
};

/** Rewrites the seeded events as the service would have written them: personal fields sealed (production sealing code). */
async function sealInPlace(pool: import('pg').Pool, plain: PostgresEventStore, sealed: PersonalDataStore) {
  const t = now();
  let after = START;
  let events = 0;
  for (;;) {
    const batch = await plain.readAll({ after, maxCount: 5000 });
    if (batch.length === 0) break;
    const request = [{ streamId: 'seal', events: batch.map((e): NewEvent => ({ type: e.type, data: e.data })) }];
    const [{ events: out }] = await sealed.seal(request);
    await pool.query(`UPDATE es_events e SET data = u.data FROM unnest($1::bigint[], $2::jsonb[]) AS u(gp, data) WHERE e.global_position = u.gp`, [
      batch.map((e) => e.position.prepare.toString()),
      out.map((e) => JSON.stringify(e.data)),
    ]);
    events += batch.length;
    after = batch[batch.length - 1].position;
  }
  await pool.query('VACUUM (ANALYZE) es_events');
  const keys = (await pool.query('SELECT count(*)::int AS n FROM data_keys')).rows[0].n as number;
  return { events, keys, secs: (now() - t) / 1000 };
}
