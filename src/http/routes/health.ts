// GET /health: database, event store and every projection's position, lag and parked events, and the
// process that answered; 503 when a store is down.
import { z } from 'zod';
import { readerHold } from '../../eventstore/reader-hold.ts';
import { readStatuses } from '../../read-models/status.ts';
import type { AppDeps } from '../deps.ts';
import { type AnyRoute, defineRoute } from '../route.ts';
import { within } from '../../sleep.ts';

/**
 * How long each check may take. A database that does not answer at all (a network that drops
 * packets) would otherwise hold /health for the pool's connection timeout, once per check.
 */
const CHECK_TIMEOUT_MS = 2_000;

const Reachable = z.enum(['ok', 'unreachable']);
/** One generation of a read model (readStatuses). */
const generation = {
  generation: z.int(),
  version: z.int().describe('the projection code version it was built by'),
  position: z.string().describe('the last log position it applied'),
  lag: z.int().describe('committed events of its types not applied yet'),
  status: z.enum(['running', 'degraded', 'rebuilding', 'failed']).describe('degraded: running, with events parked (not applied)'),
  parked: z.int(),
  error: z.string().optional(),
  error_position: z.string().optional(),
  error_event: z.string().optional().describe('the event that failed: type, stream and revision, id'),
};
const HealthOut = z
  .object({
    status: z.enum(['ok', 'degraded', 'unavailable']).describe('unavailable (503): the database or event store is down; degraded: a read model failed or parks events, or readers are held back'),
    database: Reachable,
    eventstore: Reachable,
    projections: z
      .array(z.object({ name: z.string(), ...generation, rebuild: z.object(generation).optional().describe('the generation being rebuilt beside it') }))
      .describe('one entry per read model, its live generation; empty when the database is down'),
    readers: z
      .object({
        held_back_by: z.object({
          pid: z.int().nullable(),
          age_ms: z.number().nullable(),
          application: z.string().nullable(),
          database: z.string().nullable(),
          state: z.string().nullable(),
          xid: z.string(),
          prepared_gid: z.string().optional(),
        }),
        warning: z.string().optional(),
      })
      .optional()
      .describe('the oldest open transaction, when it holds the catch-up readers back'),
    process: z.object({ pid: z.int() }).describe('the process that answered (one of several under engage serve --processes N)'),
  })
  .meta({ id: 'Health', description: 'The stores, every read model’s progress, and the process that answered' });

/** `p`, or a rejection once CHECK_TIMEOUT_MS have passed. */
const checked = <T>(p: Promise<T>): Promise<T> => within(p, CHECK_TIMEOUT_MS);

export function healthRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/health',
      auth: 'none',
      scope: null,
      rateGroup: 'public',
      operationId: 'getHealth',
      summary: 'Service health',
      tags: ['health'],
      responses: { 200: HealthOut.describe('the stores are up (status ok or degraded)'), 503: HealthOut.describe('the database or the event store is down (status unavailable)') },
      async handler({ reply }) {
        const [database, eventstore] = await Promise.all([
          checked(engage.pool.query('SELECT 1')).then(() => 'ok', () => 'unreachable'),
          checked(engage.store.ping()).then((ok) => (ok ? 'ok' : 'unreachable'), () => 'unreachable'),
        ]);
        type Entry = { name: string; generation: number; version: number; position: string; lag: number; status: string; parked: number; error?: string; rebuild?: Omit<Entry, 'name' | 'rebuild'> };
        let projections: Entry[] = [];
        if (database === 'ok') {
          try {
            const statuses = await checked(readStatuses(engage.pool, engage.store, engage.runner.projections));
            const entry = (s: (typeof statuses)[number]) => ({
              generation: s.generation,
              version: s.version,
              position: s.position,
              lag: s.lag,
              status: s.status,
              parked: s.parked,
              ...(s.error ? { error: s.error, error_position: s.error_position, error_event: s.error_event } : {}),
            });
            // one entry per read model: its live generation, and the one being rebuilt beside it (a
            // failed rebuild is reported there; the live generation keeps serving)
            projections = statuses
              .filter((s) => s.active)
              .map((s) => {
                const building = statuses.find((b) => b.name === s.name && !b.active);
                return { name: s.name, ...entry(s), ...(building ? { rebuild: entry(building) } : {}) };
              });
          } catch {
            /* reported through database/eventstore */
          }
        }
        const hold = database === 'ok' ? await checked(readerHold(engage.store, engage.config.READER_HOLD_WARN_MS)).catch(() => undefined) : undefined;
        // a read model with parked events (status degraded) serves, minus those events
        const failing = projections.some((p) => p.status === 'failed' || p.status === 'degraded');
        const down = database !== 'ok' || eventstore !== 'ok';
        reply.code(down ? 503 : 200);
        return {
          status: down ? 'unavailable' : failing || hold?.warning ? 'degraded' : 'ok',
          database,
          eventstore,
          projections,
          ...(hold ? { readers: hold } : {}),
          // which process answered: under `engage serve --processes N`, one of several API processes
          process: { pid: process.pid },
        };
      },
    }),
  ];
}
