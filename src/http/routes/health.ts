// GET /health: database, event store and every projection's position, lag and parked events, and the
// process that answered; 503 when a store is down.
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
      summary: 'Service health',
      tags: ['health'],
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
