// Message streams read straight from the Postgres event log (es_events), for tests that check what
// was recorded independently of the read models; personal fields opened as the store opens them
// (what providers report about a message is sealed under its recipient's key).
import type pg from 'pg';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import { openEvents } from '../../src/personal-data/store.ts';

export interface StreamEvent {
  /** the event id (es_events.event_id); webhook deliveries carry it as `evt_<id>` */
  id: string;
  type: string;
  data: Record<string, any>;
}

export interface StreamSummary {
  id: string;
  types: string[];
  events: StreamEvent[];
  claims: { at: string; lease_until: string; attempt: number; worker: string }[];
  reports: { provider_data?: Record<string, unknown> }[];
}

/** Every message stream of these message ids, in revision order. */
export async function streamsOf(db: pg.Pool | pg.Client, ids: string[]): Promise<Map<string, StreamSummary>> {
  const { rows } = await db.query<{ stream_id: string; events: StreamEvent[] }>(
    `SELECT stream_id, jsonb_agg(jsonb_build_object('id', event_id, 'type', type, 'data', data) ORDER BY stream_revision) AS events
     FROM es_events WHERE stream_id = ANY($1) GROUP BY stream_id`,
    [ids.map((id) => `message-${id}`)],
  );
  for (const r of rows) r.events = (await openEvents(db, r.events as unknown as RecordedEvent[])) as unknown as StreamEvent[];
  return new Map(
    rows.map((r) => {
      const id = r.stream_id.slice('message-'.length);
      return [
        id,
        {
          id,
          events: r.events,
          types: r.events.map((e) => e.type),
          claims: r.events.filter((e) => e.type === 'MessageDispatching').map((e) => e.data as StreamSummary['claims'][number]),
          reports: r.events.filter((e) => e.type === 'MessageDelivered' || e.type === 'MessageFailed').map((e) => e.data),
        },
      ];
    }),
  );
}

/** How many times `type` occurs in `types`. */
export const countOf = (types: readonly string[], type: string) => types.filter((x) => x === type).length;
