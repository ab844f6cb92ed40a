// A requested rebuild of one read model, waited for: the new generation swapped in and caught up with
// the log, so that what a test reads next comes from the replay.
import type { Projection } from '../../src/read-models/projection.ts';
import { requestRebuild } from '../../src/read-models/generations.ts';
import type { TestServer } from './harness.ts';
import { eventually } from './waits.ts';

export async function rebuildAndWait(server: TestServer, projection: Projection): Promise<void> {
  const generation = await requestRebuild(server.engage.pool, projection);
  await eventually(
    `the rebuilt ${projection.name} generation to swap in`,
    async () => {
      const { rows } = await server.engage.pool.query<{ generation: number }>('SELECT generation FROM projection_state WHERE name = $1 AND active', [projection.name]);
      return rows[0]?.generation === generation ? true : undefined;
    },
    120_000,
    50,
  );
  await server.caughtUp([projection.name]);
}
