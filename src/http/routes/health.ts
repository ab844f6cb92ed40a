// GET /health: database, event store and every projection's position and lag; 503 when a store is down.
import { readStatuses } from '../../workers/projection-runner.ts';
import type { AppDeps } from '../app.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

export function healthRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/health',
      auth: 'none',
      scope: null,
      rateGroup: 'none',
      summary: 'Service health',
      tags: ['health'],
      async handler({ reply }) {
        const database = await engage.pool
          .query('SELECT 1')
          .then(() => 'ok')
          .catch(() => 'unreachable');
        const eventstore = (await engage.store.ping()) ? 'ok' : 'unreachable';
        let projections: { name: string; position: string; lag: number; status: string; error?: string }[] = [];
        if (database === 'ok') {
          try {
            projections = (await readStatuses(engage.pool, engage.store, engage.runner.projections))
              .filter((s) => s.active || s.status === 'rebuilding')
              .map((s) => ({
                name: s.name,
                position: s.position,
                lag: s.lag,
                status: s.status,
                ...(s.generation ? { generation: s.generation } : {}),
                ...(s.error ? { error: s.error, error_position: s.error_position } : {}),
              }));
          } catch {
            /* reported through database/eventstore */
          }
        }
        const failing = projections.some((p) => p.status === 'failed');
        const down = database !== 'ok' || eventstore !== 'ok';
        reply.code(down ? 503 : 200);
        return { status: down ? 'unavailable' : failing ? 'degraded' : 'ok', database, eventstore, projections };
      },
    }),
  ];
}
